/**
 * Every size a terminal had, each after the output it followed, and how many
 * of them its emulator has applied: a resize waits until the output written
 * before it is parsed at the old size, and an emulator rebuilt from the
 * records (a parked screen) goes through the same sizes at the same points.
 * The store's terminal sizes (for recordings) are stamped with a time, which
 * does not say which record a resize came after; these are stamped with its seq.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SizeHistory } from "./size_history.ts";
 *
 * const sizes = new SizeHistory(80, 24);
 * sizes.add(5, 100, 30);
 * assert.equal(sizes.dueBefore(5), false); // records 1..5 come at 80×24
 * assert.equal(sizes.dueBefore(6), true);
 * assert.deepEqual([...sizes.due(5)], [{ afterSeq: 5, cols: 100, rows: 30 }]);
 * assert.deepEqual([...sizes.due(9)], []);
 * assert.deepEqual(sizes.restart(), { afterSeq: 0, cols: 80, rows: 24 });
 * assert.equal(sizes.dueBefore(6), true); // a rebuilt emulator resizes again
 * ```
 * @module
 */

/** A size, from the record after `afterSeq` on. */
export interface Size {
  afterSeq: number;
  cols: number;
  rows: number;
}

/** A terminal's sizes, oldest first, and those its emulator has. */
export class SizeHistory {
  readonly #sizes: Size[];
  #applied = 1;

  constructor(cols: number, rows: number) {
    this.#sizes = [{ afterSeq: 0, cols, rows }];
  }

  /** How many sizes it had: a change of it is a resize. */
  get count(): number {
    return this.#sizes.length;
  }

  /** The terminal has this size after record `afterSeq`. */
  add(afterSeq: number, cols: number, rows: number): void {
    this.#sizes.push({ afterSeq, cols, rows });
  }

  /** Whether a size not applied yet must be applied before record `seq` is parsed. */
  dueBefore(seq: number): boolean {
    const next = this.#sizes[this.#applied];
    return next !== undefined && next.afterSeq < seq;
  }

  /** The sizes not applied yet that follow record `fedSeq` or one before; each counts as applied. */
  *due(fedSeq: number): Generator<Size> {
    while (this.#applied < this.#sizes.length && this.#sizes[this.#applied].afterSeq <= fedSeq) {
      yield this.#sizes[this.#applied++];
    }
  }

  /** A new emulator starts at the first size, which it has; the others follow as before. */
  restart(): Size {
    this.#applied = 1;
    return this.#sizes[0];
  }
}
