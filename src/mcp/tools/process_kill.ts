import { z } from "zod";
import { defineTool } from "./tool.ts";
import { id, killResult } from "../../core/model/schema.ts";

export const processKill = defineTool({
  name: "process_kill",
  target: "process",
  title: "Kill a process",
  description: "End a process and all it started (PTY: its session; exited: what it left " +
    "running); returns once gone. Records stay (process_cleanup).",
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
