/**
 * Which terminals keep their emulator in memory: at most a number of them,
 * the most recently used. Past it, the least recently used one that is idle
 * is parked: its emulator is dropped, and rebuilt from its records when a
 * screen, its modes or an answer to the program is needed (screen.ts).
 * An emulator with a full scrollback costs about 2 MB, its records a few KB.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LiveScreens } from "./live_screens.ts";
 *
 * const parked: string[] = [];
 * const screen = (name: string, idle = true) => ({
 *   parkable: true,
 *   park: () => idle && parked.push(name) > 0,
 * });
 * const live = new LiveScreens(2);
 * const [a, b, c, d] = [screen("a"), screen("b", false), screen("c"), screen("d")];
 * live.used(a);
 * live.used(b);
 * live.used(a);
 * live.used(c); // b is the least recently used, but busy: a goes
 * assert.deepEqual(parked, ["a"]);
 * live.used(d);
 * assert.deepEqual(parked, ["a", "c"]);
 * ```
 * @module
 */
import { LIVE_SCREENS } from "../../limits.ts";

/** A screen as the budget sees it. */
export interface Parkable {
  /** Whether it could ever be rebuilt from its records (else it stays, and is not counted). */
  readonly parkable: boolean;
  /** Drops its emulator unless it is in use right now; true if it did. */
  park(): boolean;
}

/** The screens whose emulator is built, least recently used first. */
export class LiveScreens {
  readonly #screens = new Set<Parkable>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** `screen` has its emulator and was just used: past the limit, idle ones are parked. */
  used(screen: Parkable): void {
    this.#screens.delete(screen);
    if (!screen.parkable) return;
    this.#screens.add(screen);
    for (const other of this.#screens) {
      if (this.#screens.size <= this.#limit) break;
      if (other !== screen && (!other.parkable || other.park())) this.#screens.delete(other);
    }
  }

  /** `screen` has no emulator now (parked, or disposed). */
  forget(screen: Parkable): void {
    this.#screens.delete(screen);
  }
}

/** The server's budget, shared by every screen. */
export const liveScreens = new LiveScreens(LIVE_SCREENS);
