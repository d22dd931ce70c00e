import { defineTool } from "./tool.ts";
import {
  maxCharsParam,
  processSummary,
  startRequest,
  stepReply,
  waitRequest,
} from "../../core/model/schema.ts";
import { STEP_MAX_CHARS } from "../../limits.ts";

export const processStart = defineTool({
  name: "process_start",
  title: "Start a program",
  description:
    "Start a program for interactive use (ssh, gdb, psql/mysql, python/node REPLs, vim, htop, " +
    "less) and capture its I/O; not for one-shot commands (use your shell tool). Returns id, " +
    "os_pid, status, state. The command runs directly, never through a shell (for pipes or " +
    "globbing use command 'sh' with args ['-c', '…']); it leads its own process group. " +
    'wait "ready" also returns the banner and first prompt (output as in process_write).\n\n' +
    "pty: default false (pipes, stdout/stderr kept apart) is NOT a recommendation. Set true for " +
    "anything interactive or full-screen (programs that check isatty, REPLs, TUIs, -i/-t flags); " +
    "check program_query first. When in doubt, true: a batch program tolerates a terminal, an " +
    "interactive one on pipes hangs or goes silent. Paged one-shots (git log, man): pipes plus " +
    "--no-pager / PAGER=cat. On Windows a PTY is a ConPTY (end lines with \\r).",
  input: startRequest.extend({
    ...waitRequest("none").shape,
    max_chars: maxCharsParam(`Default ${STEP_MAX_CHARS}.`),
  }),
  output: processSummary.extend(stepReply.partial().shape),
  annotations: {
    readOnlyHint: false,
    // The program runs with the server's rights and may change anything they allow.
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  run: ({ manager }, args, control) => manager.start(args, control),
});
