/**
 * The command that reaches another machine's Portal through OpenSSH:
 * `PORTAL_SSH_COMMAND` (default `ssh`) split as Git splits
 * `GIT_SSH_COMMAND`, then the options Portal always adds (no prompt ever:
 * `BatchMode`; one TCP connection per machine however many links:
 * `ControlMaster` with its socket in Portal's private runtime directory; a
 * bounded connect), the destination, and `PORTAL_REMOTE_COMMAND` (default:
 * `portal` on that PATH, else the launcher `portal remote install` puts at
 * `~/.local/bin/portal`, by its path: the door to that user's host there).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FIND_PORTAL, splitCommand, sshArgv } from "./ssh_command.ts";
 *
 * assert.deepEqual(splitCommand(`ssh -F "my config" -o 'A=b c'`), ["ssh", "-F", "my config", "-o", "A=b c"]);
 * const argv = sshArgv("me@db1:2222", { PORTAL_SSH_COMMAND: "ssh -F cfg" }, "/run/p");
 * assert.deepEqual(argv.slice(0, 3), ["ssh", "-F", "cfg"]);
 * assert.deepEqual(argv.slice(-5), ["-p", "2222", "--", "me@db1", FIND_PORTAL]);
 * assert.ok(argv.some((arg) => /^ControlPath=\/run\/p\/ssh-[0-9a-f]{16}$/.test(arg)));
 * assert.throws(() => sshArgv("-oProxyCommand=x", {}, "/run/p"), /not an ssh destination/);
 * ```
 * @module
 */
import { createHash } from "node:crypto";
import { PortalError } from "../errors.ts";
import { readVar, REMOTE_COMMAND, SSH_COMMAND } from "../env_vars.ts";

/** Where `portal remote install` puts its launcher, from the remote user's home. */
export const LAUNCHER = ".local/bin/portal";

/**
 * What ssh runs there when `PORTAL_REMOTE_COMMAND` is not set: `portal` on
 * that PATH, else the launcher by its path (so no shell file there needs a
 * PATH line). One word, run by whatever login shell the user has (sh, bash,
 * zsh, fish: it holds no single quote), the arguments after it.
 */
export const FIND_PORTAL = "sh -c " +
  `'command -v portal >/dev/null 2>&1 && exec portal "$@"; exec "$HOME/${LAUNCHER}" "$@"' portal`;

/** How long ssh may take to connect (s); the bound for every error is 15 s. */
export const CONNECT_TIMEOUT_S = 10;

/** How long the shared connection outlives its last link (s). */
const CONTROL_PERSIST_S = 60;

/**
 * `text` split into words as Git splits `GIT_SSH_COMMAND`: at whitespace,
 * with single quotes, double quotes and a backslash keeping what they hold.
 */
export function splitCommand(text: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== null) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"' && i + 1 < text.length) word += text[++i];
      else word += c;
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= "";
    } else if (c === "\\" && i + 1 < text.length) {
      word = (word ?? "") + text[++i];
    } else {
      word = (word ?? "") + c;
    }
  }
  if (quote !== null) throw new PortalError(`unclosed ${quote} in the command ${text}`);
  if (word !== null) words.push(word);
  return words;
}

/** What else a command through ssh needs: arguments after Portal's, a terminal there. */
export interface RemoteRun {
  /** In place of `PORTAL_REMOTE_COMMAND` (a shell command line there). */
  command?: string;
  /** After `PORTAL_REMOTE_COMMAND` (`["attach", "calc"]`). */
  args?: string[];
  /** Give the remote command a terminal (`ssh -t`: `portal attach`). */
  tty?: boolean;
}

/**
 * The argv that runs `PORTAL_REMOTE_COMMAND` on `destination` (an ssh
 * config alias, `user@host` or `user@host:port`), its control socket in
 * `controlDir`. A destination that could pass for an option is refused.
 */
export function sshArgv(
  destination: string,
  env: Record<string, string | undefined>,
  controlDir: string,
  run: RemoteRun = {},
): string[] {
  const match = /^([^\s:@/-][^\s@/]*@)?([^\s:@/]+)(?::(\d{1,5}))?$/.exec(destination);
  if (match === null || destination.startsWith("-")) {
    throw new PortalError(
      `machine ${JSON.stringify(destination)} is not an ssh destination: name an alias of ` +
        "your ssh config, user@host or user@host:port (or a PORTAL_MACHINE_<name> transport).",
    );
  }
  const [, user = "", machine, port] = match;
  const ssh = splitCommand(readVar(SSH_COMMAND, env));
  const named = readVar(REMOTE_COMMAND, env);
  const remote = run.command !== undefined
    ? [run.command]
    : named === undefined
    ? [FIND_PORTAL]
    : splitCommand(named);
  // Not ssh's %C (40 characters, and ssh adds 17 while it binds): a socket's path is at most
  // 104-108 bytes. One socket per ssh command and destination, as %C is per destination.
  const key = createHash("sha256").update(JSON.stringify([ssh, destination])).digest("hex");
  return [
    ...ssh,
    ...["-o", "BatchMode=yes"],
    ...["-o", "ControlMaster=auto"],
    ...["-o", `ControlPath=${controlDir}/ssh-${key.slice(0, 16)}`],
    ...["-o", `ControlPersist=${CONTROL_PERSIST_S}`],
    ...["-o", `ConnectTimeout=${CONNECT_TIMEOUT_S}`],
    ...port ? ["-p", port] : [],
    ...run.tty ? ["-t"] : [],
    "--",
    `${user}${machine}`,
    ...remote,
    ...run.args ?? [],
  ];
}
