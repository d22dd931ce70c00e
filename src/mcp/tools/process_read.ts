import { z } from "zod";
import { defineTool } from "./tool.ts";
import { encoding, id, maxChars, recordPage } from "../../core/model/schema.ts";
import { DEFAULT_READ_WINDOW_MS, MAX_CHARS } from "../../limits.ts";

export const processRead = defineTool({
  name: "process_read",
  target: "process",
  title: "Read a time window",
  description:
    "Records (stdout, stderr, stdin) from the last duration, to look back; base64: exact " +
    "bytes.",
  input: z.object({
    id,
    source: z.enum(["stdout", "stderr", "stdin", "both"]).optional().describe(
      "Default both (stdout and stderr).",
    ),
    duration: z.number().positive().optional().describe(
      `Default ${DEFAULT_READ_WINDOW_MS}.`,
    ),
    unit: z.enum(["ns", "us", "ms", "s"]).optional().describe("Default ms."),
    max_chars: maxChars,
    encoding: encoding.optional().describe(
      "Default text (decoded).",
    ),
  }),
  output: recordPage,
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
