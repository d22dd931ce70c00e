/**
 * Walks the escape sequences of one output stream, on raw bytes, chunk by
 * chunk: a sequence split between two chunks is found by keeping the tail
 * after the last ESC (up to {@link MAX_CARRY} bytes) and joining it to the
 * start of the next chunk. What to look for is the caller's.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EscapeSequences } from "./escape_sequences.ts";
 *
 * const seen: string[] = [];
 * const walker = new EscapeSequences();
 * const csi = (b: Uint8Array, at: number) => {
 *   if (at + 3 > b.length) return false; // ends too soon: kept for the next chunk
 *   seen.push(new TextDecoder().decode(b.subarray(at + 1, at + 3)));
 *   return true;
 * };
 * walker.walk(new TextEncoder().encode("a\x1b[Hb\x1b["), csi);
 * walker.walk(new TextEncoder().encode("Jc"), csi);
 * assert.deepEqual(seen, ["[H", "[J"]);
 * ```
 * @module
 */
import { concatBytes } from "../../bytes.ts";

const ESC = 0x1b;
/** A split sequence is looked for in the last bytes of a chunk, ESC included. */
export const MAX_CARRY = 32;

/**
 * Reads the sequence at `at` (an ESC) of `bytes`; false when the bytes end
 * before it can be told what it is (it is tried again with the next chunk).
 */
export type Visit = (bytes: Uint8Array, at: number) => boolean;

/** The escape sequences of one stream, chunk after chunk. */
export class EscapeSequences {
  #carry: Uint8Array | undefined;

  /** Calls `visit` on each sequence that starts in `bytes` or was cut off the chunk before. */
  walk(bytes: Uint8Array, visit: Visit): void {
    if (this.#carry) {
      const joined = concatBytes([this.#carry, bytes.subarray(0, MAX_CARRY)]);
      this.#carry = undefined;
      visit(joined, 0); // Still cut off past MAX_CARRY bytes: not a sequence looked for.
    }
    for (let at = bytes.indexOf(ESC); at >= 0; at = bytes.indexOf(ESC, at + 1)) {
      if (!visit(bytes, at) && bytes.length - at < MAX_CARRY) this.#carry = bytes.slice(at);
    }
  }
}
