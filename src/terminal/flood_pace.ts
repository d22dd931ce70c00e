/**
 * How a backend paces a flood (`TerminalEvents.paceFlood`): it counts what it
 * reads, asks its owner after every `every` bytes and, told yes, owes a pause
 * as long as those bytes take at {@link PACED_FLOOD_BYTES_PER_MS}. The
 * backend pauses its reads for that long; the program waits on its full
 * terminal or pipe meanwhile.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FloodPace } from "./flood_pace.ts";
 * import { PACED_FLOOD_BYTES_PER_MS } from "../limits.ts";
 *
 * let paced = true;
 * const pace = new FloodPace(16 * 1024, () => paced);
 * pace.read(8 * 1024);
 * assert.equal(pace.pause(), 0); // Not asked yet: a flood is more than this.
 * pace.read(24 * 1024);
 * assert.equal(pace.pause(), (32 * 1024) / PACED_FLOOD_BYTES_PER_MS);
 * paced = false;
 * pace.read(16 * 1024);
 * assert.equal(pace.pause(), 0);
 * ```
 * @module
 */
import { PACED_FLOOD_BYTES_PER_MS } from "../limits.ts";

/** A backend's count of what it read since it last asked whether to pace. */
export class FloodPace {
  readonly #every: number;
  readonly #paced: () => boolean;
  #unpaced = 0;

  /** Asks `paced` after every `every` bytes read. */
  constructor(every: number, paced: () => boolean) {
    this.#every = every;
    this.#paced = paced;
  }

  /** Counts `bytes` just read. */
  read(bytes: number): void {
    this.#unpaced += bytes;
  }

  /** Milliseconds to pause now (0: none); asks only once `every` bytes were read since it last did. */
  pause(): number {
    if (this.#unpaced < this.#every) return 0;
    const bytes = this.#unpaced;
    this.#unpaced = 0;
    return this.#paced() ? bytes / PACED_FLOOD_BYTES_PER_MS : 0;
  }
}
