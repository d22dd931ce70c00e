import { z } from "zod";
import { defineTool } from "./tool.ts";
import { id, processDetails } from "../../core/model/schema.ts";

export const processInspect = defineTool({
  name: "process_inspect",
  title: "Inspect a process",
  description:
    "Everything known about one process: command, args, cwd, env names, pty and size, status, " +
    "state (see process_write), " +
    "exit_code or exit_signal, start and end times, idle time, and record counts (io_count, " +
    "stdout_count, stderr_count, stdin_count). On a PTY stderr_count stays 0 (merged stream) " +
    "and counts are of chunks, not lines.",
  input: z.object({ id }),
  output: processDetails,
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  run: ({ manager }, { id }) => manager.inspect(id),
});
