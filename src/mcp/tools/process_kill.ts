import { z } from "zod";
import { defineTool } from "./tool.ts";
import { id, killResult } from "../../core/model/schema.ts";

export const processKill = defineTool({
  name: "process_kill",
  title: "Kill a process",
  description:
    "Kill one running process and everything it started: pipes: SIGTERM to its process group, " +
    "SIGKILL after 0.5 s, then the rest of its session; PTY: SIGHUP to every process group of " +
    "its terminal session, then SIGKILL; Windows: its Job Object (the whole tree) is " +
    "terminated at once, exit code 1. Waits until it is gone; returns status killed and how " +
    "it ended. On a process that already exited, kills what it left running (jobs of " +
    "`sh -c 'job &'`; its status stays), or fails if nothing is left. Records and screen stay " +
    "readable; remove them with process_cleanup. To interrupt without ending, use " +
    "process_signal or write Ctrl+C.",
  input: z.object({ id }),
  output: killResult,
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    // A second call finds nothing left to kill and changes nothing.
    idempotentHint: true,
    openWorldHint: false,
  },
  run: ({ manager }, { id }) => manager.kill(id),
});
