/**
 * The few waiting primitives Portal needs, in the style of Deno std's
 * `async/delay.ts` and `async/deadline.ts`: every wait in the server is one of
 * these, so every wait has a bound.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { delay, withTimeout } from "./async.ts";
 *
 * assert.equal(await withTimeout(delay(50).then(() => "late"), 10, "timeout"), "timeout");
 * assert.equal(await withTimeout(Promise.resolve("early"), 10, "timeout"), "early");
 * ```
 * @module
 */

/** Resolves after `ms` milliseconds (at once for `ms <= 0`); an aborted `signal` rejects early. */
export function delay(ms: number, options: { signal?: AbortSignal } = {}): Promise<void> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", abort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener("abort", abort, { once: true });
  });
}

/**
 * Settles like `promise` if it settles within `ms`, else resolves to
 * `fallback`. The timer is cleared either way, so nothing lingers.
 */
export async function withTimeout<T, F>(
  promise: Promise<T>,
  ms: number,
  fallback: F,
): Promise<T | F> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<F>((resolve) => timer = setTimeout(resolve, ms, fallback));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Settles like `promise`, or rejects with `signal`'s reason once it aborts
 * (at once if it has); the listener is removed either way.
 */
export async function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (signal === undefined) return await promise;
  signal.throwIfAborted();
  const aborted = Promise.withResolvers<never>();
  const abort = () => aborted.reject(signal.reason);
  signal.addEventListener("abort", abort, { once: true });
  try {
    return await Promise.race([promise, aborted.promise]);
  } finally {
    signal.removeEventListener("abort", abort);
  }
}

/** Whether `promise` settles within `ms` (its rejection counts as settling). */
export function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return withTimeout(promise.then(() => true, () => true), ms, false);
}

/** Lets the rest of the event loop run, without a timer (ffi/yield_turn.ts). */
export { yieldTurn } from "../ffi/yield_turn.ts";
