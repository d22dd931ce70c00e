/**
 * Everything checked before a program is started, in one place for both
 * backends, so the agent gets a clear error instead of a child that dies at
 * once: what exec cannot carry (an empty command, NUL, a bad variable name),
 * the terminal size, the working directory, and the executable. Under a
 * policy, a hidden path is checked as the program sees it: as missing, with
 * the very words a missing one gets, so no error tells the agent it is there.
 *
 * @module
 */
import { childEnvironment } from "../environment.ts";
import { PortalError, quote } from "../errors.ts";
import { TERMINAL_SIZE } from "../limits.ts";
import { deniedFiles } from "./denied_files.ts";
import { checkCommand, hiddenBy, type Sandbox, statOf } from "./sandbox.ts";
import type { SpawnOptions } from "./terminal.ts";

/**
 * Finds what to run for `command` against the child's environment `env`
 * (its PATH; on Windows also PATHEXT, names in any case), or throws a
 * {@link PortalError} that says why it cannot run. Each OS has its own.
 * A path for which `hidden` is true is not there (a sandbox hides it).
 */
export type ExecutableLookup = (
  command: string,
  env: Record<string, string>,
  cwd: string,
  hidden?: (path: string) => boolean,
) => string;

/** How a backend starts programs, as far as the checks care. */
export interface LaunchRules {
  /** On a terminal, whose size must be valid too. */
  pty: boolean;
  findExecutable: ExecutableLookup;
  /**
   * Runs a launch inside a person's policy (posix/bubblewrap.ts on Linux),
   * `denied`: every name of every denied file (denied_files.ts). Absent
   * where the OS has no sandbox: a confined launch is then refused.
   */
  confine?: (launch: Launch, sandbox: Sandbox, denied: string[]) => Launch;
}

/** A launch that passed every check. */
export interface Launch {
  /** The executable to run, as `findExecutable` returned it (or the sandbox's, bwrap). */
  path: string;
  /** Its argv: the command as the agent named it, then its arguments (or bwrap's, then those). */
  argv: string[];
  cwd: string;
  /** Files it gets open for reading at fds 3, 4, … (a sandbox's seccomp filter). */
  files?: string[];
  /** How many of the sandbox's processes stand above the program (bwrap and its init: 2). */
  wrappers?: number;
  /**
   * The child's complete environment: the server's without Portal's own
   * variables and the marked secrets (src/environment.ts), `opts.env` over it.
   */
  env: Record<string, string>;
}

/** Checks `opts` for a start; throws a {@link PortalError} that says what to change. */
export function prepareLaunch(opts: SpawnOptions, rules: LaunchRules): Launch {
  if (opts.command.trim() === "") {
    throw new PortalError("command is empty: give an executable to run.");
  }
  if ([opts.command, ...opts.args].some((text) => text.includes("\0"))) {
    throw new PortalError("command and args must not contain NUL characters.");
  }
  for (const [name, value] of Object.entries(opts.env)) {
    if (name === "" || name.includes("=") || name.includes("\0") || value.includes("\0")) {
      throw new PortalError(
        `Invalid environment variable ${quote(name)}: names must be non-empty ` +
          "without '=', and neither names nor values may contain NUL.",
      );
    }
  }
  if (rules.pty) checkTerminalSize(opts.cols, opts.rows);
  const { sandbox } = opts;
  const hidden = sandbox && hiddenBy(sandbox);
  checkWorkingDirectory(opts.cwd, hidden);
  const env = { ...childEnvironment(opts.baseEnv), ...opts.env };
  const path = rules.findExecutable(opts.command, env, opts.cwd, hidden);
  const launch = { path, argv: [opts.command, ...opts.args], cwd: opts.cwd, env };
  if (!sandbox) return launch;
  // A denied name is looked for on every PATH a program here could get, not only the one given.
  const searched = [env.PATH, opts.baseEnv?.PATH, Deno.env.get("PATH")];
  const denied = deniedFiles(sandbox.deny, searched);
  checkCommand(opts.command, path, sandbox, denied.ruleOf);
  if (!sandbox.confined) return launch;
  if (!rules.confine) {
    throw new PortalError(
      "The person's policy needs a sandbox, which Portal has only on Linux: nothing was started.",
      "unsupported",
    );
  }
  return rules.confine(launch, sandbox, denied.files);
}

/** Throws unless `cols` and `rows` are whole numbers within {@link TERMINAL_SIZE}. */
export function checkTerminalSize(cols: number, rows: number): void {
  const { min, max } = TERMINAL_SIZE;
  const ok = (n: number) => Number.isInteger(n) && n >= min && n <= max;
  if (!ok(cols) || !ok(rows)) {
    throw new PortalError(
      `Invalid terminal size ${cols}x${rows}: cols and rows must be whole numbers ` +
        `from ${min} to ${max}.`,
    );
  }
}

/** Throws unless `cwd` (absolute) is an existing directory (a `hidden` one is missing). */
function checkWorkingDirectory(cwd: string, hidden?: (path: string) => boolean): void {
  const info = hidden?.(cwd) ? null : statOf(cwd);
  if (!info) {
    throw new PortalError(
      `cwd ${
        quote(cwd)
      } does not exist. Give an existing directory, preferably as an absolute path.`,
    );
  }
  if (!info.isDirectory) throw new PortalError(`cwd ${quote(cwd)} is not a directory.`);
}
