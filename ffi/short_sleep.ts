/**
 * Short sleeps that end on time. Deno's timers fire 1-2 ms after they are
 * due, even `setTimeout(r, 0)`, which is most of a REPL step's budget;
 * `usleep` on the blocking FFI pool ends within tens of microseconds. A `usleep` in flight serves every
 * sleeper due after it ends, so concurrent waits share a pool thread or a
 * few. Sleeps over {@link MAX_MS} use an ordinary timer, whose lateness no
 * longer matters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shortSleep } from "./short_sleep.ts";
 *
 * const start = performance.now();
 * await shortSleep(0.5);
 * assert.ok(performance.now() - start >= 0.5);
 * ```
 * @module
 */
import { libc } from "./libc.ts";

/** Sleeps longer than this use a timer. */
export const MAX_MS = 10;

interface Sleeper {
  due: number;
  wake: () => void;
}

const sleepers: Sleeper[] = [];
/** When each `usleep` in flight ends (`performance.now()` time). */
const inFlight: number[] = [];

/**
 * Resolves `ms` milliseconds from now, precisely for up to {@link MAX_MS};
 * an aborted `signal` resolves it at once (and clears its timer).
 */
export function shortSleep(ms: number, signal?: AbortSignal): Promise<void> {
  const { promise, resolve } = Promise.withResolvers<void>();
  if (signal?.aborted) return Promise.resolve();
  if (ms > MAX_MS) {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
    return promise;
  }
  const sleeper = { due: performance.now() + Math.max(0, ms), wake: resolve };
  sleepers.push(sleeper);
  signal?.addEventListener("abort", () => {
    const at = sleepers.indexOf(sleeper);
    if (at >= 0) sleepers.splice(at, 1);
    resolve();
  }, { once: true });
  schedule();
  return promise;
}

/**
 * Makes sure a `usleep` ends by the time the earliest sleeper is due: one in
 * flight that ends no later does (its end schedules the next); otherwise a
 * new one starts, so a short sleep never waits behind a longer one.
 */
function schedule(): void {
  if (sleepers.length === 0) return;
  const earliest = Math.min(...sleepers.map((s) => s.due));
  if (inFlight.some((end) => end <= earliest)) return;
  inFlight.push(earliest);
  const micros = Math.max(0, Math.ceil((earliest - performance.now()) * 1000));
  libc().usleep(micros).then(() => {
    inFlight.splice(inFlight.indexOf(earliest), 1);
    const now = performance.now();
    for (let i = sleepers.length - 1; i >= 0; i--) {
      if (sleepers[i].due <= now) sleepers.splice(i, 1)[0].wake();
    }
    schedule();
  });
}
