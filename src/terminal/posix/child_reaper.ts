/**
 * Reaps the children the POSIX backends spawn: SIGCHLD plus
 * `waitpid(pid, WNOHANG)` for each tracked pid. One instance,
 * {@link childReaper}, serves every terminal, as the readiness loop does.
 *
 * @module
 */
import { libc } from "../../../ffi/libc.ts";
import { C } from "../../../ffi/os_constants.ts";
import { signalName } from "../../signals.ts";
import type { ExitInfo } from "../terminal.ts";

/** Called once with how the child ended (both fields null if its status was lost). */
export type ReapedCallback = (exit: ExitInfo) => void;

/** Longest pause between two polls for a child expected to exit. */
const MAX_POLL_DELAY_MS = 200;

/**
 * Each tracked pid is waited for by pid, never with `waitpid(-1)`, which would
 * steal the children of `Deno.Command`. The SIGCHLD listener exists only while
 * children are tracked. Deno's signal listeners do not keep the process alive,
 * so a child expected to exit soon is also polled on a timer.
 */
export class ChildReaper {
  readonly #tracked = new Map<number, ReapedCallback>();
  /** Tracked pids whose output has ended: polled until reaped. */
  readonly #expected = new Set<number>();
  #listening = false;
  #pollTimer: ReturnType<typeof setTimeout> | undefined;
  #pollDelay = 0;

  /**
   * Reaps `pid` once it exits and calls `onReaped`, never before the caller's
   * synchronous code has finished.
   */
  track(pid: number, onReaped: ReapedCallback): void {
    this.#tracked.set(pid, onReaped);
    if (!this.#listening) {
      Deno.addSignalListener("SIGCHLD", this.#reap);
      this.#listening = true;
    }
    // The child may have exited before the listener existed. A microtask, so
    // that no callback runs before the spawning function has returned.
    queueMicrotask(this.#reap);
  }

  /**
   * Polls for tracked `pid` (its output ended) until it is reaped: SIGCHLD
   * usually comes first, but alone it would not keep the process alive.
   */
  expectExit(pid: number): void {
    this.#expected.add(pid);
    if (this.#pollTimer === undefined) {
      this.#pollDelay = 1;
      this.#pollTimer = setTimeout(this.#poll, this.#pollDelay);
    }
  }

  readonly #poll = (): void => {
    this.#pollTimer = undefined;
    this.#reap();
    if (this.#expected.size === 0) return;
    this.#pollDelay = Math.min(this.#pollDelay * 2, MAX_POLL_DELAY_MS);
    this.#pollTimer = setTimeout(this.#poll, this.#pollDelay);
  };

  /** A field, not a method: the same function must be added and removed as the listener. */
  readonly #reap = (): void => {
    const status = new Int32Array(1);
    for (const [pid, onReaped] of this.#tracked) {
      const rc = libc().waitpid(pid, status, C.WNOHANG);
      if (rc === 0) continue;
      this.#tracked.delete(pid);
      this.#expected.delete(pid);
      // rc < 0 (ECHILD): someone else reaped it; the status is lost.
      onReaped(rc === pid ? decodeStatus(status[0]) : { code: null, signal: null });
    }
    if (this.#expected.size === 0) {
      clearTimeout(this.#pollTimer);
      this.#pollTimer = undefined;
    }
    if (this.#tracked.size === 0 && this.#listening) {
      Deno.removeSignalListener("SIGCHLD", this.#reap);
      this.#listening = false;
    }
  };
}

/**
 * A `waitpid` status: the exit code, or the signal that ended the child
 * (`SIGRTMIN+n` included) and whether it dumped core. Stops are never
 * reported: no WUNTRACED.
 */
function decodeStatus(status: number): ExitInfo {
  const signo = status & 0x7f;
  if (signo === 0) return { code: (status >> 8) & 0xff, signal: null };
  const info: ExitInfo = { code: null, signal: signalName(signo) };
  if (status & 0x80) info.coreDumped = true;
  return info;
}

/** The reaper every pipe and PTY child of this process shares. */
export const childReaper: ChildReaper = new ChildReaper();
