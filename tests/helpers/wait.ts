/**
 * Waiting on conditions in tests, with a deadline instead of a hopeful sleep.
 *
 * @module
 */

/**
 * Resolves as soon as `predicate()` is true (checked every 10 ms); rejects
 * with `what` in the message if it is still false after `timeoutMs`.
 */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what = "condition",
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
