/**
 * Where the agent works now: the process its latest tool call named, among
 * every session of the server (they share its CPU). A terminal flooding
 * output while the agent works with another process is read at a slower
 * pace (see `TerminalEvents.paceFlood`): a server that takes more than its
 * share of a busy machine's CPU waits for one at every wake-up, and the
 * agent's calls with it (docs/decisions/2026-12-02-responsiveness-under-load.md).
 * A flood the agent itself looks at, that a call waits on, or whose
 * keyboard a person took over on a watch page, is read at full speed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Attention } from "./attention.ts";
 *
 * const attention = new Attention();
 * assert.equal(attention.elsewhere(1), false); // No call has named a process yet.
 * attention.named(1);
 * assert.equal(attention.elsewhere(1), false);
 * attention.named(2);
 * assert.equal(attention.elsewhere(1), true);
 * ```
 * @module
 */

/** The process the agent's latest call named. */
export class Attention {
  #on: number | null = null;

  /** A tool call named process `id` (started, read, wrote to, inspected it…). */
  named(id: number): void {
    this.#on = id;
  }

  /** Whether the agent's latest call named a process other than `id`. */
  elsewhere(id: number): boolean {
    return this.#on !== null && this.#on !== id;
  }
}
