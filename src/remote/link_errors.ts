/**
 * Why a link to another machine's Portal could not open or has ended, in
 * words an agent can act on: ssh's own message and the host, then what to
 * do (set up a key, install Portal there, name its path).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { linkFailure } from "./link_errors.ts";
 *
 * const auth = linkFailure("db1", true, 255, "me@db1: Permission denied (publickey,password).");
 * assert.match(auth, /Permission denied.*ssh-copy-id/s);
 * assert.match(linkFailure("db1", true, 127, "bash: line 1: portal: command not found"), /remote install db1/);
 * ```
 * @module
 */

/** Where the docs say how to set a machine up. */
const DOCS = "docs/remote.md";

/** The message for a link to `host` whose command exited with `code`, having said `stderr`. */
export function linkFailure(
  host: string,
  ssh: boolean,
  code: number | null,
  stderr: string,
): string {
  const said = stderr === "" ? "" : `: ${lastLines(stderr)}`;
  if (
    ssh && /permission denied|no more authentication methods|host key verification/i.test(stderr)
  ) {
    return `ssh could not log in to ${host}${said}. Portal's ssh runs with BatchMode=yes: it ` +
      "cannot type a password or accept a new host key. Set up a key (ssh-keygen, then " +
      `ssh-copy-id ${host}; accept the host key once with ssh ${host} true) or start \`ssh\` ` +
      "itself with process_start (pty: true) and answer its prompts with secret_prompt. " +
      `See ${DOCS}.`;
  }
  if (code === 127 || /command not found|not found|no such file/i.test(stderr)) {
    return `${host} has no Portal to run${said}. Set it up with one command, run by a person ` +
      `here: \`portal remote install ${host}\` (it copies Portal, and Deno if the machine has ` +
      "none, through ssh; nothing is downloaded there), or PORTAL_REMOTE_INSTALL=auto in " +
      "Portal's environment to do so at first use; or set PORTAL_REMOTE_COMMAND to Portal's " +
      `path there. See ${DOCS}.`;
  }
  if (ssh && code === 255) {
    return `ssh cannot reach ${host}${said}. Check the name (an alias of your ssh config, ` +
      `user@host or user@host:port) and that the machine is up.`;
  }
  return `The link to ${host} ended (exit ${code ?? "by a signal"})${said}.`;
}

/** The last three lines of `text`, joined: what ssh said last says why. */
function lastLines(text: string): string {
  return text.split("\n").map((line) => line.trim()).filter((line) => line !== "").slice(-3)
    .join(" ");
}
