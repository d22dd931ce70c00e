import { z } from "zod";
import { defineTool } from "./tool.ts";
import {
  byDefault,
  encoding,
  id,
  maxChars,
  name,
  record,
  recordPage,
} from "../../core/model/schema.ts";
import { DEFAULT_READ_WINDOW_MS, MAX_CHARS, READ_LINES } from "../../limits.ts";

export const processRead = defineTool({
  name: "process_read",
  target: "process",
  title: "Read a time window",
  description:
    "Records (stdout, stderr, stdin) from the last duration, to look back; base64: exact " +
    "bytes. pattern: search all stored lines; line: the lines around one.",
  input: z.object({
    id,
    // both: stdout and stderr.
    source: byDefault(z.enum(["stdout", "stderr", "stdin", "both"]), "both"),
    duration: byDefault(z.number().positive(), DEFAULT_READ_WINDOW_MS),
    unit: byDefault(z.enum(["ns", "us", "ms", "s"]), "ms"),
    max_chars: maxChars,
    encoding: byDefault(encoding, "text"),
    // What pattern, line and context do, the instructions say once.
    pattern: name().optional(),
    line: z.number().int().min(1).optional(),
    context: byDefault(z.number().int().min(0).max(READ_LINES.maxContext), READ_LINES.context),
  }),
  output: recordPage.extend({
    records: z.array(record).optional(),
    lines: z.array(z.object({
      line: z.number(),
      text: z.string(),
      match: z.literal(true).optional(),
    })).optional(),
    matches: z.number().optional(),
    total_lines: z.number().optional(),
    stopped_at_line: z.number().optional(),
  }),
  // Not read-only: it restarts the idle timeout.
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  run: ({ manager }, { id, max_chars, ...options }) =>
    manager.read(id, { ...options, max_chars: max_chars ?? MAX_CHARS.default }),
});
