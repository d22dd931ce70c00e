/**
 * One timer that polls every ConPTY of the server on the JS thread: each
 * tick asks every registered terminal to read what its output pipe holds
 * (`PeekNamedPipe`, then a `ReadFile` of exactly that much), to write
 * queued input, and to check whether its process has exited (a wait with a
 * zero timeout). Nothing ever blocks and no thread is used.
 *
 * Why polling, when the POSIX backend waits in one `poll`: the pipes
 * ConPTY writes to are anonymous pipes (`CreatePipe`), which cannot be waited
 * on; a blocking `ReadFile` per terminal on Deno's nonblocking FFI pool would
 * take one of its 32 threads per terminal, and such a read can never be
 * cancelled. The alternative, overlapped named pipes waited on with
 * `WaitForMultipleObjects` on the pool, would need buffers and OVERLAPPED
 * structs the kernel writes into after the call returns, kept alive and
 * unmoved by hand, and a wait per 63 handles; a mistake there corrupts memory
 * silently, and no machine of this project can run Windows to catch one.
 * Polling keeps every call synchronous and short; its price is latency (at
 * most {@link MAX_INTERVAL_MS} after a quiet spell) and a few cheap calls per
 * terminal per tick.
 *
 * The interval adapts: it drops to {@link MIN_INTERVAL_MS} as soon as a tick
 * finds work (or a terminal {@link PollLoop.kick}s it after queueing input)
 * and doubles with each idle tick up to {@link MAX_INTERVAL_MS}. With no
 * terminal registered no timer is pending, so a process with none exits.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PollLoop } from "./poll_loop.ts";
 *
 * const loop = new PollLoop();
 * let ticks = 0;
 * const done = Promise.withResolvers<void>();
 * const entry = {
 *   poll() {
 *     if (++ticks === 3) {
 *       loop.remove(entry);
 *       done.resolve();
 *     }
 *     return false;
 *   },
 * };
 * loop.add(entry);
 * await done.promise;
 * assert.equal(loop.size, 0);
 * ```
 * @module
 */

/** The pause after a tick that found work, or after a kick. */
export const MIN_INTERVAL_MS = 1;
/** The longest pause, reached after a few idle ticks: the latency of the first byte after a lull. */
export const MAX_INTERVAL_MS = 20;

/** Something polled on every tick. */
export interface Pollable {
  /** Does what is due without blocking; true if there was anything (output, input, an exit). */
  poll(): boolean;
}

/** See the module doc. */
export class PollLoop {
  readonly #entries = new Set<Pollable>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #interval = MIN_INTERVAL_MS;

  /** Number of registered entries. */
  get size(): number {
    return this.#entries.size;
  }

  /** Polls `entry` from the next tick on (soon: adding counts as a kick). */
  add(entry: Pollable): void {
    this.#entries.add(entry);
    this.kick();
  }

  /** Stops polling `entry`; the timer stops with the last one. */
  remove(entry: Pollable): void {
    this.#entries.delete(entry);
    if (this.#entries.size === 0) this.#stop();
  }

  /** Polls again within {@link MIN_INTERVAL_MS}: something is due (queued input, a close). */
  kick(): void {
    this.#interval = MIN_INTERVAL_MS;
    if (this.#entries.size === 0) return;
    this.#stop();
    this.#timer = setTimeout(() => this.#tick(), MIN_INTERVAL_MS);
  }

  #stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #tick(): void {
    this.#timer = undefined;
    let busy = false;
    // A snapshot: entries remove themselves (and others may be added) during the tick.
    for (const entry of [...this.#entries]) {
      if (!this.#entries.has(entry)) continue;
      try {
        if (entry.poll()) busy = true;
      } catch (error) {
        reportError(error);
      }
    }
    // A kick during the tick already scheduled the next one.
    if (this.#timer !== undefined || this.#entries.size === 0) return;
    this.#interval = busy ? MIN_INTERVAL_MS : Math.min(this.#interval * 2, MAX_INTERVAL_MS);
    this.#timer = setTimeout(() => this.#tick(), this.#interval);
  }
}

/** The loop every ConPTY of this process shares. */
export const pollLoop: PollLoop = new PollLoop();
