/**
 * Idle timers held off by waits. The idle timeout of `process_start`'s
 * `timeout_ms`: a running process that nobody reads from or writes to for
 * that long is ended and removed; a wait in progress counts as attention:
 * the agent is there, only waiting. An HTTP session's, the same way: it
 * ends once idle that long, and an open request holds it off.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { IdleTimeouts } from "./idle_timeout.ts";
 *
 * const expired: number[] = [];
 * const timeouts = new IdleTimeouts<number>((id) => void expired.push(id));
 * timeouts.arm(1, 10);
 * timeouts.hold(1);
 * await new Promise((resolve) => setTimeout(resolve, 30));
 * assert.deepEqual(expired, []);
 * timeouts.release(1, 10);
 * await new Promise((resolve) => setTimeout(resolve, 30));
 * assert.deepEqual(expired, [1]);
 * ```
 * @module
 */

interface Entry {
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Waits in progress: while any runs, no timer is armed. */
  waits: number;
}

/** Idle timers by key (a process, an HTTP session); `onExpire` runs when one fires. */
export class IdleTimeouts<K> {
  readonly #entries = new Map<K, Entry>();
  readonly #onExpire: (key: K) => void;

  constructor(onExpire: (key: K) => void) {
    this.#onExpire = onExpire;
  }

  /** (Re)starts the timer of `key`: `ms` from now, unless a wait holds it (0: no timeout). */
  arm(key: K, ms: number): void {
    const entry = this.#entry(key);
    clearTimeout(entry.timer);
    entry.timer = undefined;
    if (ms <= 0 || entry.waits > 0) return;
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      this.#onExpire(key);
    }, ms);
    // A timer alone must not keep the server alive.
    Deno.unrefTimer(entry.timer);
  }

  /** A wait on `key` begins: its timer stops until the last wait ends. */
  hold(key: K): void {
    this.#entry(key).waits++;
    this.arm(key, 0);
  }

  /** A wait on `key` ended: the timer restarts (`ms`) once no other wait runs. */
  release(key: K, ms: number): void {
    const entry = this.#entry(key);
    entry.waits = Math.max(0, entry.waits - 1);
    this.arm(key, ms);
  }

  /** `key` ended or went away: no timer any more. */
  clear(key: K): void {
    clearTimeout(this.#entries.get(key)?.timer);
    this.#entries.delete(key);
  }

  #entry(key: K): Entry {
    let entry = this.#entries.get(key);
    if (entry === undefined) this.#entries.set(key, entry = { timer: undefined, waits: 0 });
    return entry;
  }
}
