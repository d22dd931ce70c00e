import { z } from "zod";
import { defineTool } from "./tool.ts";
import { encoding, id, maxChars, recordPage } from "../../core/model/schema.ts";
import { DEFAULT_READ_WINDOW_MS, MAX_CHARS } from "../../limits.ts";

export const processRead = defineTool({
  name: "process_read",
  title: "Read output by time window",
  description: "Read a process's records from the last `duration` (default " +
    `${DEFAULT_READ_WINDOW_MS} ms; for an ended process, the last \`duration\` before it ended): ` +
    "what it wrote (stdout, stderr) and what was written to it (stdin). For a step-by-step " +
    "conversation prefer process_read_new, which returns each record once; use this to look " +
    "back. Does not move process_read_new's cursors. Resets the idle timer. When max_chars is " +
    "reached, the newest records are kept. On a PTY, stderr is merged into stdout and records " +
    "are chunks, not lines (a prompt may lack its newline); your input's echo appears as " +
    "output. For full-screen programs use process_screen. dropped_bytes > 0: older output was " +
    "dropped by the size cap.",
  input: z.object({
    id,
    source: z.enum(["stdout", "stderr", "stdin", "both"]).optional().describe(
      "Which records; both = stdout and stderr (default).",
    ),
    duration: z.number().positive().optional().describe(
      `How far back to read. Default ${DEFAULT_READ_WINDOW_MS}.`,
    ),
    unit: z.enum(["ns", "us", "ms", "s"]).optional().describe("Unit of duration. Default ms."),
    max_chars: maxChars,
    encoding: encoding.optional().describe(
      "text (default): decoded, invalid UTF-8 as U+FFFD, escapes stripped. base64: the exact " +
        "bytes of each record (max_chars counts base64 characters).",
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
