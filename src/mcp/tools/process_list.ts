import { z } from "zod";
import { defineTool } from "./tool.ts";
import { processSummary } from "../../core/model/schema.ts";

export const processList = defineTool({
  name: "process_list",
  title: "List processes",
  description: "List this client's processes and the kept ones (running, exited or killed, until " +
    "cleaned up): id, name, command, os_pid, status, state (waiting_for_input, running, …), " +
    "pty, keep, timeout_ms, inactive_duration_ms, io_count. For one " +
    "process's full details (exit code, counts per source, times) use process_inspect.",
  input: z.object({}),
  output: z.object({ processes: z.array(processSummary) }),
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  run: ({ manager }) => ({ processes: manager.list() }),
});
