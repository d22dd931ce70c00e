/**
 * The one way tests, benchmarks and the demo wait: poll a probe until its
 * value is what they need, with a deadline, so a wait never hangs and never
 * hopes. Every poll helper (reading output, screens, exits, process tables)
 * is built on {@link waitFor}.
 *
 * @example
 * ```ts
 * import { waitFor } from "./wait.ts";
 *
 * const started = Date.now();
 * const elapsed = await waitFor("20 ms to pass", () => Date.now() - started, {
 *   until: (ms) => ms >= 20,
 * });
 * ```
 * @module
 */

/** How {@link waitFor} polls. */
export interface WaitOptions<T> {
  /** Whether a probed value is the one awaited; default: any truthy value. */
  until?: (value: T) => boolean;
  /** Deadline, from the first probe; default 10 s. */
  timeoutMs?: number;
  /** Pause between probes; default 10 ms. */
  intervalMs?: number;
}

/**
 * Calls `probe` until `until(value)` holds and returns that value. Past the
 * deadline it throws an error naming `what` was awaited and the last value
 * seen, which is usually all a failure report needs. A probe that throws ends
 * the wait with its error.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | Promise<T>,
  options: WaitOptions<T> = {},
): Promise<T> {
  const { until = Boolean, timeoutMs = 10_000, intervalMs = 10 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (until(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out after ${timeoutMs} ms waiting for ${what}; last value seen: ${show(value)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Room for the last value in a timeout message: enough to see what went wrong, not a flood. */
const SHOWN_CHARS = 4000;

/** A value for an error message: strings quoted with escapes visible, long ones cut in the middle. */
function show(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : Deno.inspect(value, {
    colors: false,
    depth: 6,
    compact: true,
    breakLength: Infinity,
    strAbbreviateSize: SHOWN_CHARS,
  });
  if (text.length <= SHOWN_CHARS) return text;
  // The end of an output is where a test's expectation usually failed; keep more of it.
  const head = SHOWN_CHARS / 4;
  const tail = SHOWN_CHARS - head;
  return `${text.slice(0, head)} …[${text.length - SHOWN_CHARS} chars]… ${text.slice(-tail)}`;
}
