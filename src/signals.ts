/**
 * Signal names and numbers for the OS the server runs on, and the parsing of
 * what an agent passes to `process_signal`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveSignal } from "./signals.ts";
 *
 * assert.deepEqual(resolveSignal("sigint"), { name: "SIGINT", number: 2 });
 * assert.deepEqual(resolveSignal("15"), { name: "SIGTERM", number: 15 });
 * assert.deepEqual(resolveSignal("CTRL_C_EVENT"), { name: "CTRL_C_EVENT", number: null });
 * ```
 * @module
 */
import { IS_DARWIN, IS_LINUX } from "../ffi/libc.ts";
import { PortalError, quote } from "./errors.ts";

const LINUX: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGILL: 4,
  SIGTRAP: 5,
  SIGABRT: 6,
  SIGIOT: 6,
  SIGBUS: 7,
  SIGFPE: 8,
  SIGKILL: 9,
  SIGUSR1: 10,
  SIGSEGV: 11,
  SIGUSR2: 12,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
  SIGSTKFLT: 16,
  SIGCHLD: 17,
  SIGCLD: 17,
  SIGCONT: 18,
  SIGSTOP: 19,
  SIGTSTP: 20,
  SIGTTIN: 21,
  SIGTTOU: 22,
  SIGURG: 23,
  SIGXCPU: 24,
  SIGXFSZ: 25,
  SIGVTALRM: 26,
  SIGPROF: 27,
  SIGWINCH: 28,
  SIGIO: 29,
  SIGPOLL: 29,
  SIGPWR: 30,
  SIGSYS: 31,
  SIGRTMIN: 34,
  SIGRTMAX: 64,
};

const DARWIN: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGILL: 4,
  SIGTRAP: 5,
  SIGABRT: 6,
  SIGIOT: 6,
  SIGEMT: 7,
  SIGFPE: 8,
  SIGKILL: 9,
  SIGBUS: 10,
  SIGSEGV: 11,
  SIGSYS: 12,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
  SIGURG: 16,
  SIGSTOP: 17,
  SIGTSTP: 18,
  SIGCONT: 19,
  SIGCHLD: 20,
  SIGTTIN: 21,
  SIGTTOU: 22,
  SIGIO: 23,
  SIGXCPU: 24,
  SIGXFSZ: 25,
  SIGVTALRM: 26,
  SIGPROF: 27,
  SIGWINCH: 28,
  SIGINFO: 29,
  SIGUSR1: 30,
  SIGUSR2: 31,
};

/**
 * Windows has no POSIX signals; these are the names its backends act on:
 * SIGINT types ^C into a console, SIGTERM and SIGKILL terminate the
 * program's Job Object (src/terminal/windows/).
 */
const WINDOWS: Record<string, number> = {
  SIGINT: 2,
  SIGBREAK: 21,
  SIGTERM: 15,
  SIGKILL: 9,
};

/** Console control events, accepted by name on every OS (see {@link resolveSignal}). */
export const CTRL_C_EVENT = "CTRL_C_EVENT";
export const CTRL_BREAK_EVENT = "CTRL_BREAK_EVENT";

/** The signal table of the OS the server runs on: name → number. */
export const SIGNALS: Readonly<Record<string, number>> = IS_LINUX
  ? LINUX
  : IS_DARWIN
  ? DARWIN
  : WINDOWS;

/** A signal the agent asked for, in canonical form. */
export interface ResolvedSignal {
  /** Canonical name, e.g. `"SIGINT"`, `"SIGRTMIN+3"` or `"CTRL_C_EVENT"`. */
  name: string;
  /** OS signal number; `null` for a console control event. */
  number: number | null;
}

/** Returns the name of a signal number on this OS (first name wins for aliases). */
export function signalName(signo: number): string {
  for (const [name, n] of Object.entries(SIGNALS)) if (n === signo) return name;
  const rtmin = SIGNALS.SIGRTMIN;
  if (rtmin !== undefined && signo > rtmin && signo < SIGNALS.SIGRTMAX) {
    return `SIGRTMIN+${signo - rtmin}`;
  }
  return `signal ${signo}`;
}

/**
 * Parses a signal given by name (`"SIGINT"`, `"int"`, `"SIGRTMIN+2"`), by
 * number (`"2"`, `2`), or as a console event (`"CTRL_C_EVENT"`).
 * Throws {@link PortalError} listing the valid names for anything else.
 */
export function resolveSignal(input: string | number): ResolvedSignal {
  const text = String(input).trim().toUpperCase();
  if (text === CTRL_C_EVENT || text === CTRL_BREAK_EVENT) {
    return { name: text, number: null };
  }
  const max = Math.max(...Object.values(SIGNALS));
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    if (n >= 1 && n <= max) return { name: signalName(n), number: n };
    throw new PortalError(
      `Signal number ${n} is out of range: use 1..${max} or a name (${listSignals()}).`,
    );
  }
  const name = text.startsWith("SIG") ? text : `SIG${text}`;
  const rt = /^SIGRTM(IN|AX)([+-]\d+)$/.exec(name);
  if (rt && SIGNALS.SIGRTMIN !== undefined) {
    const n = SIGNALS[`SIGRTM${rt[1]}`] + Number(rt[2]);
    if (n >= SIGNALS.SIGRTMIN && n <= SIGNALS.SIGRTMAX) {
      return { name: signalName(n), number: n };
    }
  }
  const n = SIGNALS[name];
  if (n !== undefined) return { name, number: n };
  throw new PortalError(
    `Unknown signal ${quote(String(input))}. Use a name or number: ${listSignals()}.`,
  );
}

/** The accepted names, for error messages. */
function listSignals(): string {
  const realtime = SIGNALS.SIGRTMIN === undefined ? [] : ["SIGRTMIN+n", "SIGRTMAX-n"];
  return [...Object.keys(SIGNALS), ...realtime, CTRL_C_EVENT, CTRL_BREAK_EVENT].join(", ");
}
