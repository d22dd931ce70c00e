/**
 * Whether a terminal asks for a secret now: the one test behind
 * `waiting_for_secret`, behind where `process_write` types a secret without
 * `force`, and behind what a person types on the watch page or through
 * `portal attach` being recorded as a secret.
 *
 * - **Echo off in canonical mode**: the line discipline reads a line nobody
 *   sees (getpass, ssh's own password prompt, sudo on this machine).
 * - **A password prompt behind a relay**: ssh, `docker exec`, `kubectl
 *   exec` put this terminal in raw mode and relay each key to a far side
 *   whose modes cannot be seen. Echo is off here (the far side echoes, or
 *   not), and the last line of output reads like a password prompt: "[sudo]
 *   password for bob: ", "Password: ", "Enter passphrase for key …: ". A
 *   local program that reads keys itself (a TUI's password field) counts the
 *   same way. A program that echoes locally (`read -p 'Password: '`) does not:
 *   what is typed there is shown anyway.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { asksForSecret } from "./password_prompt.ts";
 *
 * const raw = { echo: false, canonical: false };
 * const line = (text: string) => () => text;
 * assert.equal(asksForSecret({ echo: false, canonical: true }, line(">>> ")), true);
 * assert.equal(asksForSecret(raw, line("[sudo] password for bob: ")), true);
 * assert.equal(asksForSecret(raw, line("bob@db1's password: ")), true);
 * assert.equal(asksForSecret(raw, line("\x1b[1mEnter PIN:\x1b[0m ")), true);
 * assert.equal(asksForSecret(raw, line("bob@db1:~$ ")), false);
 * assert.equal(asksForSecret({ echo: true, canonical: true }, line("Password: ")), false);
 * assert.equal(asksForSecret(null, line("Password: ")), false);
 * ```
 * @module
 */
import type { LineModes } from "../../terminal/terminal.ts";
import { AnsiStripper } from "../text/ansi.ts";

/**
 * A line that ends by asking for a password, a passphrase, a passcode or a
 * PIN (as ssh, sudo, su, passwd, mysql, psql, git and gpg word it), then a
 * colon: the word comes at most 100 characters before the end.
 */
const PASSWORD_PROMPT = /\b(pass(word|phrase|code)|passwort|PIN)\b[^\r\n]{0,100}:\s*$/i;
/** How much of the last line is looked at: a prompt is short. */
const TAIL_CHARS = 200;

/**
 * Whether what is typed into a terminal with `modes` (null: pipes, or modes
 * that cannot be read), whose last line of output `lastLine` gives, is a
 * secret (see the module doc). The line is asked for only in raw mode.
 */
export function asksForSecret(modes: LineModes | null, lastLine: () => string): boolean {
  if (modes === null || modes.echo) return false;
  if (modes.canonical) return true;
  // Without the colours and other escapes a prompt may be drawn with.
  return PASSWORD_PROMPT.test(new AnsiStripper().push(lastLine().slice(-TAIL_CHARS)));
}
