import { z } from "zod";
import { defineTool } from "./tool.ts";
import { id, processId } from "../../core/schema.ts";

export const processWrite = defineTool({
  name: "process_write",
  title: "Write to a program",
  description:
    "Write text to a running process's input, exactly as given: add \\n (or \\r for raw-mode " +
    "TUIs like vim, and always on a Windows PTY) to press Enter. Control keys are characters: " +
    "\\u0003 Ctrl+C, \\u0004 Ctrl+D (EOF at a line start), \\u001a Ctrl+Z, \\u001b Esc. On a " +
    "PTY, Ctrl+C interrupts the foreground job like a keyboard does, and your input is echoed " +
    "back as output: treat the echo as yours, don't resend. Recorded as stdin. Resets the idle " +
    "timer. Then read the reply with process_read_new.",
  input: z.object({
    id,
    content: z.string().describe("Text to write (UTF-8)."),
    eof: z.boolean().optional().describe(
      "Then end the input: pipes close stdin (for programs that read to EOF, like sort); a " +
        "PTY gets Ctrl+D (Windows: Ctrl+Z Enter). Default false.",
    ),
  }),
  output: z.object({ id: processId, bytes_written: z.number() }),
  annotations: {
    readOnlyHint: false,
    // What is typed into a shell or a database client can change anything.
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  run: ({ manager }, { id, content, eof }) => manager.write(id, content, eof),
});
