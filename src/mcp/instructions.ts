/** What the server tells the agent at initialize: how to pick `pty`, and the usual loop. */
export const INSTRUCTIONS =
  `Portal runs interactive programs for you (ssh, gdb, psql/mysql, python/node REPLs, vim, less, top) and keeps their I/O, where a one-shot shell tool would hang. For one-shot commands keep using your shell tool.

Choosing pty in process_start (check program_query first):
- pty: true for programs that check isatty (ssh, gdb, psql, mysql, telnet, REPLs), full-screen TUIs (vim, htop, top, less, man) and -i/-it/-t flags. When in doubt, true.
- pty: false (pipes, stdout and stderr kept apart) for batch programs and servers whose output you want as plain lines; paged one-shots (git log): pipes with --no-pager or PAGER=cat.
Afterwards, program_record what you learned.

Usual loop, one call per step: process_start with wait: "ready" (returns the banner and first prompt) → process_write with your input (end lines with \\n; \\r on a Windows PTY): it returns once the program waits for input again, with the new output → … → process_kill when done → process_cleanup.
- state in each reply: waiting_for_input; waiting_for_secret (a password prompt: echo is off); running (still busy when wait_ms ran out: call process_read_new with wait: "ready" to wait on); stopped; exited.
- Passwords: at waiting_for_secret, process_write secret_env (a variable the person marked secret for the server) or secret_prompt (the person is asked; you never see it), not content. Secrets are never stored or returned: output shows [secret].
- Keys by name: keys: ["Ctrl+C"], ["Up", "Enter"], ["Escape"]. Long jobs: wait: "exit" or a longer wait_ms; expect: "regex" returns as soon as output matches.
- If a wait returns before the answer (node's REPL during an await), start the program with prompt: "its prompt regex"; waits then end on that prompt.
- PTY: your input is echoed back as output; stderr is merged into stdout; full-screen programs (vim, less) reply with their rendered screen (process_screen shows it any time).
- Set timeout_ms on processes you might forget: an idle process is then killed and removed.`;
