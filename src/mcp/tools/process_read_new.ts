import { z } from "zod";
import { defineTool } from "./tool.ts";
import {
  byDefault,
  id,
  maxChars,
  record,
  recordPage,
  stepReply,
  waitRequest,
} from "../../core/model/schema.ts";

export const processReadNew = defineTool({
  name: "process_read_new",
  target: "process",
  title: "Read new output",
  description: "Output since your last read, each record once (waiting calls' output counts as " +
    "read). With wait: replies like process_write.",
  input: z.object({
    id,
    source: byDefault(z.enum(["stdout", "stderr", "both"]), "both"),
    max_chars: maxChars,
    ...waitRequest("none").shape,
  }),
  output: recordPage.extend({
    records: z.array(record).optional(),
    // It types nothing: no echo to leave out.
    ...stepReply.omit({ truncated: true, echo_chars: true }).shape,
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
