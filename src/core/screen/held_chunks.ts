/**
 * Output a screen has not handed to its emulator yet, kept in memory: all of
 * it for a screen without a store, what it took from the store before a
 * clear, and otherwise the first unparsed chunks while they are few (a
 * catch-up then reads nothing back from SQLite: 200 chatty terminals spent a
 * third of the server's time reading their screens' backlogs). Once one does
 * not fit, the store has the rest, and nothing more is kept until the
 * emulator has caught up (the chunks kept are always the oldest unparsed).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HeldChunks } from "./held_chunks.ts";
 *
 * const held = new HeldChunks(4);
 * const chunk = (seq: number) => ({ seq, bytes: new Uint8Array(2) });
 * held.offer(chunk(1));
 * held.offer(chunk(2));
 * held.offer(chunk(3)); // past 4 bytes: the store has it, and 4
 * held.offer(chunk(4));
 * assert.deepEqual(held.take(100).map((c) => c.seq), [1, 2]);
 * held.caughtUp();
 * held.offer(chunk(5));
 * assert.equal(held.lastSeq, 5);
 * ```
 * @module
 */

/** A chunk of program output and its record's sequence number. */
export interface Chunk {
  seq: number;
  bytes: Uint8Array;
}

/** The oldest unparsed chunks of one screen, in seq order. */
export class HeldChunks {
  #chunks: Chunk[] = [];
  #bytes = 0;
  /** A chunk did not fit: until the emulator has caught up, the store has what comes. */
  #spilled = false;
  readonly #limit: number;

  /** `limit`: bytes kept of what the store has too (Infinity: the screen has no store). */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Keeps a chunk just written, if it and those before fit. */
  offer(chunk: Chunk): void {
    if (this.#spilled || this.#bytes + chunk.bytes.length > this.#limit) {
      this.#spilled = true;
      return;
    }
    this.#chunks.push(chunk);
    this.#bytes += chunk.bytes.length;
  }

  /** Keeps chunks taken from the store (which is about to delete them), whatever their size. */
  add(chunks: Chunk[]): void {
    this.#chunks.push(...chunks);
    for (const chunk of chunks) this.#bytes += chunk.bytes.length;
  }

  /** The newest chunk's seq, if any is kept. */
  get lastSeq(): number | undefined {
    return this.#chunks.at(-1)?.seq;
  }

  /** The oldest chunks, about `maxBytes` of them (at least one, if any), no longer kept. */
  take(maxBytes: number): Chunk[] {
    let bytes = 0;
    let n = 0;
    while (n < this.#chunks.length && bytes < maxBytes) bytes += this.#chunks[n++].bytes.length;
    this.#bytes -= bytes;
    return this.#chunks.splice(0, n);
  }

  /** The emulator has everything written: what comes next may be kept again. */
  caughtUp(): void {
    this.#spilled = false;
  }

  /** Forgets every chunk; until {@link caughtUp}, keeps none (the store has them). */
  drop(): void {
    this.#chunks = [];
    this.#bytes = 0;
    this.#spilled = true;
  }
}
