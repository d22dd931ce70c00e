import { z } from "zod";
import { defineTool } from "./tool.ts";
import {
  id,
  maxCharsParam,
  name,
  processId,
  stepReply,
  waitRequest,
} from "../../core/model/schema.ts";
import {
  CONTENT_MAX_CHARS,
  KEYS_MAX,
  SECRET_LABEL_MAX,
  SECRET_MAX_CHARS,
  STEP_MAX_CHARS,
} from "../../limits.ts";

export const processWrite = defineTool({
  name: "process_write",
  title: "Write to a program and get its answer",
  description:
    "Send input to a running process and, by default, wait for the answer: one call per " +
    "step. content is written as is (\\n = Enter; \\r on a Windows PTY); keys are key names sent after it (Enter, " +
    "Tab, Escape, Up, PageDown, F5, Ctrl+C, Alt+B, Shift+Tab…; on pipes Enter is \\n and " +
    "Ctrl+C sends SIGINT). Multi-line content goes as one bracketed paste where the " +
    "program enabled it (bash).\n\n" +
    'wait "ready" (default) returns once the program waits for input again (Linux: told by ' +
    'the kernel), "exit" once it exits, "none" at once; expect (regex) also ends it when ' +
    "output after the write matches. Reply: state (running, waiting_for_input, " +
    "waiting_for_secret = password prompt, stopped, exited), reason (ready, expect, exit, " +
    "timeout, none), match (text, groups), output: all new output since your last read (PTY: " +
    "echo included), at most max_chars (head and tail kept, omitted_chars counts the rest); " +
    "on vim/less the rendered screen (cursor set). It counts as read for process_read_new. " +
    "Input is recorded as stdin.\n\n" +
    "Passwords (state waiting_for_secret): send secret_env (a variable the person marked " +
    "secret for the server) or secret_prompt (the person types it; you never see it), else secret, plus " +
    'keys ["Enter"]. A secret is never stored or returned: records and output show [secret]. ' +
    "On a PTY it goes only to a password prompt (echo off) unless force.",
  input: z.object({
    id,
    content: z.string().max(CONTENT_MAX_CHARS).optional().describe("Text to write (UTF-8)."),
    keys: z.array(z.string().max(KEYS_MAX.chars)).max(KEYS_MAX.count).optional().describe(
      'Sent after content, e.g. ["Up", "Enter"], ["Ctrl+C"]; case-insensitive.',
    ),
    secret: z.string().max(SECRET_MAX_CHARS).optional().describe(
      "Password or token, typed after content.",
    ),
    secret_env: name().optional().describe(
      "Name of a server variable marked secret (PORTAL_SECRET_*, PORTAL_SECRET_ENV): its value.",
    ),
    secret_prompt: z.string().max(SECRET_LABEL_MAX).optional().describe(
      "Label: the person is asked (MCP elicitation).",
    ),
    force: z.boolean().optional().describe("Type the secret even though echo is on."),
    eof: z.boolean().optional().describe(
      "Then end the input: pipes close stdin (for programs that read to EOF, like sort); a " +
        "PTY gets Ctrl+D (Windows: Ctrl+Z Enter). Default false.",
    ),
    ...waitRequest("ready").shape,
    max_chars: maxCharsParam(`Cap on output. Default ${STEP_MAX_CHARS}.`),
  }),
  output: z.object({ id: processId, bytes_written: z.number(), ...stepReply.shape }),
  annotations: {
    readOnlyHint: false,
    // What is typed into a shell or a database client can change anything.
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  run: ({ manager }, { id, ...request }, control) => manager.write(id, request, control),
});
