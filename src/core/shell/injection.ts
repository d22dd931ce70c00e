/**
 * How Portal's hooks (hooks.ts) get into a bash, zsh or fish it starts on a
 * terminal, after everything the shell would have read by itself:
 *
 * - **bash**: `--init-file` names a file that first sources what bash would
 *   have sourced (`~/.bashrc`, the file of `--rcfile`, or for a login shell
 *   `/etc/profile` and the first of `~/.bash_profile`, `~/.bash_login`,
 *   `~/.profile`, as VS Code does: `--init-file` and `--login` exclude each
 *   other, so the shell is started without `--login` and imitates it), then
 *   adds the hooks. With `--norc` no file is read: the hooks are sourced by
 *   `PROMPT_COMMAND` at the first prompt, which is then replaced (and not
 *   passed on to children).
 * - **zsh**: `ZDOTDIR` is a temporary directory whose `.zshenv`,
 *   `.zprofile` and `.zshrc` each source the user's own (from the user's
 *   `ZDOTDIR`, else `HOME`), and `.zshrc` then adds the hooks and puts
 *   `ZDOTDIR` back, so `.zlogin` and everything after are the user's.
 * - **fish**: `--init-command`, which fish runs after its configuration,
 *   sources a file that adds the hooks.
 *
 * The hooks sign their marks with a key made for this process (hooks.ts),
 * which is written only in these files (mode 0600, in a directory of
 * mode 0700): never in an argument or a variable of the environment, which any program of the user can read
 * in /proc for as long as the shell runs. The files go as soon as the
 * shell has read them (its first signed mark, {@link Injection.cleanup}).
 *
 * A shell that is not interactive (`-c`, a script), a POSIX-mode bash, a zsh
 * told to read no startup files (`-f`), or any other program is left alone.
 * The temporary files are removed by {@link Injection.cleanup} (at the first
 * signed mark, else when the process ends); their directories carry the
 * server's pid, so those of a server that was killed (SIGKILL) are found and
 * removed by the next host ({@link removeDeadInjections}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { injectionFor } from "./injection.ts";
 *
 * const home = { HOME: "/home/me" };
 * assert.equal(injectionFor({ command: "bash", args: ["-c", "ls"], env: {} }, home), null);
 * assert.equal(injectionFor({ command: "python3", args: [], env: {} }, home), null);
 * const fish = injectionFor({ command: "/usr/bin/fish", args: ["-l"], env: {} }, home)!;
 * assert.deepEqual([fish.args[0], fish.args.at(-1)], ["--init-command", "-l"]);
 * assert.ok(!fish.args.join(" ").includes(fish.key));
 * fish.cleanup();
 * const bash = injectionFor({ command: "bash", args: ["-il"], env: {} }, home)!;
 * assert.deepEqual([bash.args[0], bash.args.slice(2)], ["--init-file", ["-i"]]);
 * const init = Deno.readTextFileSync(bash.args[1]);
 * assert.ok(init.includes("bash_profile") && init.includes(bash.key));
 * bash.cleanup();
 * ```
 * @module
 */
import { basename, join } from "node:path";
import { tmpdir } from "node:os";
import process from "node:process";
import { processRuns } from "../../terminal/backends.ts";
import type { Sandbox } from "../../terminal/sandbox.ts";
import type { SpawnOptions } from "../../terminal/terminal.ts";
import { shellQuote } from "../text/shell_quote.ts";
import { type HookedShell, hooksFor, newMarkKey } from "./hooks.ts";

/** The temporary directories' names: `portal-<shell>-`, the server's pid, a dash, a random part. */
const INJECTION_DIR = /^portal-(?:bash|zsh|fish)-(\d+)-/;

/**
 * Removes the injection directories, in the temporary directory, of servers
 * of this user that no longer run (killed, so their cleanups never ran); for
 * a host that starts (POSIX). Returns how many.
 */
export function removeDeadInjections(): number {
  const dir = tmpdir();
  let removed = 0;
  for (const entry of Deno.readDirSync(dir)) {
    const pid = Number(INJECTION_DIR.exec(entry.name)?.[1] ?? NaN);
    if (!(pid > 0) || pid === Deno.pid || processRuns(pid)) continue;
    const path = join(dir, entry.name);
    try {
      const info = Deno.lstatSync(path);
      if (!info.isDirectory || info.uid !== process.getuid?.()) continue;
    } catch {
      continue;
    }
    remover(path)();
    removed++;
  }
  return removed;
}

/** A launch with the hooks in, their key, and what to remove once the shell has read it. */
export interface Injection {
  args: string[];
  env: Record<string, string>;
  /** The key the hooks sign their marks with. */
  key: string;
  /** Its temporary directory, which the shell reads (a sandbox shows it over its own /tmp). */
  files: string[];
  /** Removes the files (again: nothing). */
  cleanup(): void;
}

/** What is launched: the program, its arguments, the variables set over the server's. */
type Launch = Pick<SpawnOptions, "command" | "args" | "env">;

/**
 * What a program of `spec` is launched with, and its injection if any: on a
 * terminal it announces itself as xterm-256color (what the emulator
 * understands; the server's own TERM describes some other terminal) unless
 * the caller says otherwise, and a shell there gets Portal's integration
 * when `inject`. `environment` as for {@link injectionFor}.
 */
export function launchWith<S extends Launch & { pty: boolean }>(
  spec: S,
  inject: boolean,
  environment?: Record<string, string>,
  sandbox?: Sandbox,
): {
  launch: S & Pick<SpawnOptions, "baseEnv" | "sandbox">;
  injection: Injection | null;
} {
  const env = { ...spec.pty ? { TERM: "xterm-256color" } : {}, ...spec.env };
  const injection = inject ? injectionFor({ ...spec, env }, environment) : null;
  const launch = {
    ...spec,
    args: injection?.args ?? spec.args,
    env: { ...env, ...injection?.env },
    baseEnv: environment,
    // A sandbox's /tmp is its own: the hooks' files are shown to it there.
    sandbox: sandbox && { ...sandbox, readable: [...sandbox.readable, ...injection?.files ?? []] },
  };
  return { launch, injection };
}

/**
 * The launch of `launch` with Portal's shell integration in, or null when
 * it is no interactive bash, zsh or fish. `environment` is the server's own
 * (for `HOME` and `ZDOTDIR`).
 */
export function injectionFor(
  launch: Launch,
  environment: Record<string, string | undefined> = Deno.env.toObject(),
): Injection | null {
  const lookup = (name: string) => launch.env[name] ?? environment[name];
  const key = newMarkKey();
  switch (basename(launch.command)) {
    case "bash":
      return bashInjection(launch, key);
    case "zsh":
      return zshInjection(launch, lookup("ZDOTDIR"), lookup("HOME") ?? "~", key);
    case "fish":
      return fishInjection(launch, key);
    default:
      return null;
  }
}

/** Whether `arg` is a cluster of one-letter options (`-il`, `+o`). */
const isCluster = (arg: string) => /^[-+][^-]/.test(arg);

function bashInjection(launch: Launch, key: string): Injection | null {
  const kept: string[] = [];
  let rcfile: string | null = null;
  let norc = false;
  let login = false;
  let noprofile = false;
  const args = launch.args;
  let i = 0;
  // Long options come first in bash.
  for (; i < args.length && args[i].startsWith("--") && args[i] !== "--"; i++) {
    const arg = args[i];
    if (arg === "--posix" || arg === "--help" || arg === "--version") return null;
    if (arg === "--rcfile" || arg === "--init-file") rcfile = args[++i] ?? "";
    else if (arg === "--norc") norc = true;
    else if (arg === "--login") login = true;
    else if (arg === "--noprofile") noprofile = true;
    else kept.push(arg);
  }
  let stdin = false;
  for (; i < args.length; i++) {
    const arg = args[i];
    if (stdin) {
      kept.push(arg); // with -s, the operands are positional parameters
      continue;
    }
    if (arg === "--" || !isCluster(arg)) return null; // a script, or `--` before one
    const letters = arg.slice(1);
    if (arg[0] === "-" && letters.includes("s")) stdin = true;
    if (arg[0] === "-" && letters.includes("c")) return null;
    if (arg[0] === "-" && letters.includes("l")) login = true;
    const rest = arg[0] === "-" ? letters.replaceAll("l", "") : letters;
    if (rest !== "") kept.push(arg[0] + rest);
    // -o and -O take the next argument.
    if (/[oO]$/.test(rest)) {
      const option = args[++i];
      if (option === undefined) return null;
      if (option === "posix" && arg[0] === "-") return null;
      kept.push(option);
    }
  }
  const dir = tempDir("bash");
  if (norc && !login) {
    // No file is read (not even the system's bashrc, as --init-file would): the hooks are
    // sourced at the first prompt by PROMPT_COMMAND, which is then replaced, and not
    // passed on to children. The environment names the file, never the key.
    const file = write(dir, "init.bash", hooksFor("bash", key));
    const env = { PROMPT_COMMAND: `unset PROMPT_COMMAND\n. ${shellQuote(file)}` };
    return injection(dir, key, ["--norc", ...kept], env);
  }
  const sources = login
    ? (noprofile ? "" : LOGIN_FILES)
    : `${sourced(rcfile === null ? '"$HOME/.bashrc"' : shellQuote(rcfile))}\n`;
  const file = write(dir, "init.bash", sources + hooksFor("bash", key));
  return injection(dir, key, ["--init-file", file, ...kept]);
}

/** What a login bash reads (`man bash`, INVOCATION). */
const LOGIN_FILES = [
  sourced("/etc/profile"),
  `if [ -r "$HOME/.bash_profile" ]; then . "$HOME/.bash_profile"`,
  `elif [ -r "$HOME/.bash_login" ]; then . "$HOME/.bash_login"`,
  `elif [ -r "$HOME/.profile" ]; then . "$HOME/.profile"; fi`,
  "",
].join("\n");

function zshInjection(
  launch: Launch,
  zdotdir: string | undefined,
  home: string,
  key: string,
): Injection | null {
  const args = launch.args;
  let stdin = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--help" || arg === "--version" || arg === "--no-rcs") return null;
    if (arg.startsWith("--")) continue;
    if (!isCluster(arg)) {
      if (stdin) continue; // with -s, the operands are positional parameters
      return null; // a script
    }
    const letters = arg.slice(1);
    if (arg[0] === "-" && (letters.includes("c") || letters.includes("f"))) return null;
    if (arg[0] === "-" && letters.includes("s")) stdin = true;
    if (/o$/.test(letters)) {
      const option = (args[++i] ?? "").toLowerCase().replaceAll("_", "");
      if (arg[0] === "-" ? option === "norcs" : option === "rcs") return null;
    }
  }
  const dir = tempDir("zsh");
  const user = `"$PORTAL_USER_ZDOTDIR"`;
  // Each file runs the user's of the same name, with ZDOTDIR as the user has it meanwhile.
  const file = (name: string) =>
    [`ZDOTDIR=${user}`, sourced(`"$ZDOTDIR/${name}"`), `PORTAL_USER_ZDOTDIR="$ZDOTDIR"`].join("\n");
  const own = shellQuote(dir);
  for (const name of [".zshenv", ".zprofile"]) write(dir, name, `${file(name)}\nZDOTDIR=${own}\n`);
  const restore = zdotdir === undefined ? "unset ZDOTDIR" : `ZDOTDIR=${user}\nexport ZDOTDIR`;
  write(
    dir,
    ".zshrc",
    `${file(".zshrc")}\n${restore}\nunset PORTAL_USER_ZDOTDIR\n${hooksFor("zsh", key)}`,
  );
  return injection(dir, key, args, { ZDOTDIR: dir, PORTAL_USER_ZDOTDIR: zdotdir ?? home });
}

/** fish's options that end its interactive use, and those that take a value. */
const FISH_NOT_INTERACTIVE = [
  "-c",
  "--command",
  "-n",
  "--no-execute",
  "-v",
  "--version",
  "-h",
  "--help",
];
const FISH_WITH_VALUE = ["-C", "--init-command", "-d", "--debug", "-o", "--debug-output"];

function fishInjection(launch: Launch, key: string): Injection | null {
  const args = launch.args;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (FISH_NOT_INTERACTIVE.includes(arg) || arg.startsWith("--command=")) {
      return null;
    }
    if (FISH_WITH_VALUE.includes(arg)) i++;
    else if (!arg.startsWith("-")) return null; // a script
  }
  const dir = tempDir("fish");
  const file = write(dir, "init.fish", hooksFor("fish", key));
  return injection(dir, key, ["--init-command", `source ${shellQuote(file)}`, ...args]);
}

/** A new directory for one shell's files, named for {@link INJECTION_DIR}. */
function tempDir(shell: HookedShell): string {
  return Deno.makeTempDirSync({ prefix: `portal-${shell}-${Deno.pid}-` });
}

/** The injection whose files are in `dir`, launched with `args` and `env`. */
function injection(
  dir: string,
  key: string,
  args: string[],
  env: Record<string, string> = {},
): Injection {
  return { args, env, key, files: [dir], cleanup: remover(dir) };
}

/** A line that sources `path` (a shell word) if it is readable, leaving `$?` at 0. */
function sourced(path: string): string {
  return `if [ -r ${path} ]; then . ${path}; fi`;
}

/** Writes file `name` of `dir`, for its owner's eyes only; returns its path. */
function write(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  Deno.writeTextFileSync(path, text, { mode: 0o600 });
  return path;
}

/** Removes `dir` and all in it, the first time it is called. */
function remover(dir: string): () => void {
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch { /* already gone */ }
  };
}
