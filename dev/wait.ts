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
  const late = () =>
    new Error(`Timed out after ${timeoutMs} ms waiting for ${what}: the probe did not answer`);
  for (;;) {
    const value = await beforeDeadline(probe(), deadline, late);
    if (until(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out after ${timeoutMs} ms waiting for ${what}; last value seen: ${show(value)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The least time a probe is given before it counts as hung. */
const PROBE_GRACE_MS = 5_000;

/** `value`, or `late()`'s error if it has not settled by `deadline` (a probe may hang too). */
async function beforeDeadline<T>(
  value: T | Promise<T>,
  deadline: number,
  late: () => Error,
): Promise<T> {
  if (!(value instanceof Promise)) return value;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    // A probe started near the deadline still gets a few seconds: slow is not hung.
    timer = setTimeout(() => reject(late()), Math.max(PROBE_GRACE_MS, deadline - Date.now()));
  });
  try {
    return await Promise.race([value, expired]);
  } finally {
    clearTimeout(timer);
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
