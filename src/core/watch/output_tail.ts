/**
 * The last bytes of a stream, from a line's start: what a watch page draws
 * while a flood runs faster than it can be shown (a picture of the latest
 * output, not the exact screen, which waits for the emulator).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OutputTail } from "./output_tail.ts";
 *
 * const tail = new OutputTail(12);
 * const bytes = (s: string) => new TextEncoder().encode(s);
 * tail.add(bytes("one\ntwo\n"));
 * tail.add(bytes("three\nfour"));
 * assert.equal(new TextDecoder().decode(tail.latest(1)), "four");
 * assert.equal(new TextDecoder().decode(tail.latest(5)), "three\nfour"); // at most 12 bytes
 * ```
 * @module
 */
import { concatBytes } from "../../bytes.ts";

const LF = 0x0a;

/** The last `maxBytes` (or a little more) of what was added. */
export class OutputTail {
  readonly #maxBytes: number;
  #chunks: Uint8Array[] = [];
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  add(bytes: Uint8Array): void {
    this.#chunks.push(bytes);
    this.#bytes += bytes.length;
    while (this.#chunks.length > 1 && this.#bytes - this.#chunks[0].length >= this.#maxBytes) {
      this.#bytes -= this.#chunks.shift()!.length;
    }
  }

  /**
   * The last `lines` lines (a screenful: no more to draw than it shows), at
   * most `maxBytes` of them, starting after a line feed where one is in them
   * (so neither an escape sequence nor a UTF-8 character is cut).
   */
  latest(lines: number): Uint8Array {
    const all = concatBytes(this.#chunks);
    const from = Math.max(0, all.length - this.#maxBytes);
    let start = all.length;
    // The last byte may be a line feed: it ends the last line, and starts none.
    let end = all.length - 1;
    for (let n = 0; n < lines; n++) {
      const lf = end > 0 ? all.lastIndexOf(LF, end - 1) : -1;
      if (lf < from) return all.subarray(from === 0 || start === all.length ? from : start);
      start = lf + 1;
      end = lf;
    }
    return all.subarray(start);
  }
}
