import { z } from "zod";
import { defineTool } from "./tool.ts";
import { id, killResult } from "../../core/schema.ts";

export const processKill = defineTool({
  name: "process_kill",
  title: "Kill a process",
  description:
    "Kill one running process and everything it started: pipes: SIGTERM to its process group, " +
    "SIGKILL after 0.5 s; PTY: SIGHUP to every process group of its terminal session, then " +
    "SIGKILL; Windows: its Job Object (the whole tree) is terminated at once, exit code 1. " +
    "Waits until it is gone; returns status killed and how it ended. Its records and " +
    "screen stay readable; remove them with process_cleanup. To interrupt without ending, use " +
    "process_signal or write Ctrl+C.",
  input: z.object({ id }),
  output: killResult,
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    // A second call finds the process ended and changes nothing.
    idempotentHint: true,
    openWorldHint: false,
  },
  run: ({ manager }, { id }) => manager.kill(id),
});
