import { z } from "zod";
import { defineTool } from "./tool.ts";
import { id, maxChars, recordPage } from "../../core/schema.ts";
import { MAX_CHARS } from "../../limits.ts";

export const processReadNew = defineTool({
  name: "process_read_new",
  title: "Read new output",
  description:
    "Read the output a process produced since your last process_read_new for that source: " +
    "each record exactly once, in order (server-side cursor per process and per source; " +
    "reading stdout never skips stderr). The usual way to follow a program: write, then call " +
    "this until the expected output or prompt appears. Empty records mean nothing new yet. If " +
    "truncated is true, call again for the rest. status tells whether the program is still " +
    "running. process_clear resets the cursors; process_read does not move them. Resets the " +
    "idle timer. PTY: stderr is merged into stdout, records are chunks, your input is echoed. " +
    "dropped_bytes > 0: that much unread output was dropped by the size cap.",
  input: z.object({
    id,
    source: z.enum(["stdout", "stderr", "both"]).optional().describe(
      "Which output; default both.",
    ),
    max_chars: maxChars,
  }),
  output: recordPage,
  // Not read-only: it moves the cursor and restarts the idle timeout.
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  run: ({ manager }, { id, source, max_chars }) =>
    manager.readNew(id, { source, max_chars: max_chars ?? MAX_CHARS.default }),
});
