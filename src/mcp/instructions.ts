/** What the server tells the agent at initialize: how to pick `pty`, and the usual loop. */
export const INSTRUCTIONS =
  `Portal runs interactive programs for you (ssh, gdb, psql/mysql, python/node REPLs, vim, less, top) and keeps their I/O, where a one-shot shell tool would hang. For one-shot commands keep using your shell tool.

Choosing pty in process_start (check program_query first):
- pty: true for programs that check isatty (ssh, gdb, psql, mysql, telnet, REPLs), full-screen TUIs (vim, htop, top, less, man) and -i/-it/-t flags. When in doubt, true.
- pty: false (pipes, stdout and stderr kept apart) for batch programs and servers whose output you want as plain lines; paged one-shots (git log): pipes with --no-pager or PAGER=cat.
Afterwards, program_record what you learned.

Usual loop: process_start → process_read_new (wait for the prompt) → process_write (end lines with \\n; \\r on a Windows PTY) → process_read_new … → process_kill when done → process_cleanup.
- Output arrives asynchronously: if process_read_new returns no records yet, call it again.
- PTY: your input is echoed back as output; stderr is merged into stdout; use process_screen to see full-screen programs; Ctrl+C is process_write "\\u0003" (or process_signal SIGINT, which goes to the foreground job).
- Set timeout_ms on processes you might forget: an idle process is then killed and removed.`;
