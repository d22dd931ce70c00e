import { z } from "zod";
import { defineTool } from "./tool.ts";
import {
  id,
  maxChars,
  record,
  recordPage,
  stepReply,
  waitRequest,
} from "../../core/model/schema.ts";

export const processReadNew = defineTool({
  name: "process_read_new",
  title: "Read new output",
  description:
    "Read the output a process produced since your last read of it: each record exactly " +
    "once, in order (cursor per process and source; stdout never skips stderr; what " +
    "process_write and process_start return counts as read). Empty records: nothing new " +
    "yet; truncated: call again for the rest. With wait (ready, exit; expect, wait_ms as in " +
    "process_write) it waits first, then returns output as one text like process_write. " +
    "process_clear resets the cursors; process_read does not move them. Resets the idle " +
    "timer. PTY: stderr is merged into stdout, records are chunks, your input is echoed. " +
    "dropped_bytes > 0: that much unread output was dropped by the size cap.",
  input: z.object({
    id,
    source: z.enum(["stdout", "stderr", "both"]).optional().describe(
      "Which output; default both.",
    ),
    max_chars: maxChars,
    ...waitRequest("none").shape,
  }),
  output: recordPage.extend({
    records: z.array(record).optional(),
    ...stepReply.omit({ truncated: true }).shape,
  }),
  // Not read-only: it moves the cursor and restarts the idle timeout.
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  run: ({ manager }, { id, ...options }, control) => manager.readNew(id, options, control),
});
