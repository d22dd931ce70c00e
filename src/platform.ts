/**
 * Everything that differs between Windows and POSIX, chosen here, once (as
 * node-pty's index.ts does): which terminal backends (terminal/backends.ts
 * holds them: a door loads this module and starts no program), short
 * sleeps, the signals that stop the server, and where per-user files go. Whether a program waits for
 * input comes with each backend (its Terminal's `inputState`): Linux reads
 * /proc; macOS and Windows answer "unknown", and waits fall back to silence
 * and prompt-like lines. No other module tests the OS but ffi/libc.ts, for
 * what lies below this one: which C library it is (glibc or macOS's), which
 * libc's constants (ffi/os_constants.ts), its calling convention and the
 * signal numbers (src/signals.ts) follow. tests/unit/house_test.ts checks it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SHUTDOWN_SIGNALS } from "./platform.ts";
 *
 * assert.ok(SHUTDOWN_SIGNALS.includes("SIGINT"));
 * ```
 * @module
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { shortSleep } from "../ffi/short_sleep.ts";
import { delay } from "./async.ts";

const OS = Deno.build.os;
const WINDOWS = OS === "windows";

/**
 * Which terminal backends start programs here: POSIX PTYs and pipes, or
 * ConPTY and pipes in a Job Object. terminal/backends.ts holds them, apart
 * from this module, so that what imports it (a door) loads none of them.
 */
export const TERMINALS: "posix" | "windows" = WINDOWS ? "windows" : "posix";

/**
 * Sleeps `ms` milliseconds, on time even below a millisecond where the C
 * library can do it (JS timers fire 1-2 ms late; a REPL answers in less). An
 * aborted `signal` ends it early, without an error.
 */
export const sleep: (ms: number, signal?: AbortSignal) => Promise<void> = WINDOWS
  ? (ms, signal) => delay(ms, { signal }).catch(() => {})
  : shortSleep;

/** The signals that make the server kill its programs and exit. */
export const SHUTDOWN_SIGNALS: readonly Deno.Signal[] = WINDOWS
  ? ["SIGINT", "SIGBREAK"]
  : ["SIGINT", "SIGTERM", "SIGHUP"];

/**
 * Whether `portal` on stdio is a door to a per-user host: on POSIX. Windows
 * has no session sentinel to end a host's programs if it is killed, so there
 * `portal` serves in its own process, as `--no-host` does.
 */
export const HOST_SUPPORTED = !WINDOWS;

/** Whether Portal has a sandbox on this OS (Linux: bubblewrap), which every policy then uses. */
export const HAS_SANDBOX = OS === "linux";
/** This machine as npm names platforms (the deno package's binaries): `linux`/`x64`, `darwin`/`arm64`… */
export const MACHINE: { os: string; arch: string } = {
  os: OS,
  arch: Deno.build.arch === "aarch64" ? "arm64" : "x64",
};

/**
 * Why programs cannot be confined by a person's policy on this OS, or null
 * where the kernel can do it: Linux, given bubblewrap (whether it runs here is
 * terminal/posix/bubblewrap.ts's bubblewrapProblem). macOS's Seatbelt cannot be
 * tested here, so it is not claimed, and Windows has nothing alike.
 */
export const NO_SANDBOX: string | null = OS === "linux" ? null : `a policy that needs the kernel ` +
  `(a mode other than full, hide, network or commands.deny) is enforced only on Linux, with ` +
  `bubblewrap; this is ${OS}.`;

/** Whether a process can pass open files to another over a Unix socket (SCM_RIGHTS). */
export const FD_PASSING = !WINDOWS;

/** Whether files have POSIX permission bits: Windows has ACLs instead, and chmod fails there. */
export const HAS_FILE_MODES = !WINDOWS;

/** The user's base directories on this OS, which Portal's own directories go under. */
export interface UserDirs {
  /** Data to keep: XDG_DATA_HOME or ~/.local/share; ~/Library/Application Support; %APPDATA%. */
  data: string;
  /**
   * State that may be lost (history, logs): XDG_STATE_HOME or ~/.local/state;
   * ~/Library/Application Support; %LOCALAPPDATA%.
   */
  state: string;
}

/**
 * {@link UserDirs} as `env` (the server's environment) sets them. Without
 * HOME, the account's home directory (never the working directory, which may
 * be `/`).
 */
export function userDirs(env: Record<string, string>): UserDirs {
  const home = env.HOME ?? env.USERPROFILE ?? homedir();
  if (WINDOWS) {
    return {
      data: env.APPDATA ?? join(home, "AppData", "Roaming"),
      state: env.LOCALAPPDATA ?? join(home, "AppData", "Local"),
    };
  }
  if (OS === "darwin") {
    const support = join(home, "Library", "Application Support");
    return { data: support, state: support };
  }
  return {
    data: env.XDG_DATA_HOME || join(home, ".local", "share"),
    state: env.XDG_STATE_HOME || join(home, ".local", "state"),
  };
}

/** What `portal doctor` runs on a terminal to see one work: `tty` prints its name; Windows has none. */
export const TERMINAL_PROBE: { command: string; args: string[] } = WINDOWS
  ? { command: "cmd.exe", args: ["/d", "/c", "echo", "console"] }
  : { command: "tty", args: [] };
