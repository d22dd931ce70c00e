/**
 * Lines out of a byte stream, bounded and in linear time: each chunk is
 * searched once for its newlines (the bytes held before it never again), and
 * a line longer than the bound is refused as soon as the bytes held pass it,
 * so a peer that sends one endless line costs at most the bound in memory.
 * A newline byte is never inside a UTF-8 sequence: each line decodes alone.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LineSplitter, LineTooLong } from "./line_splitter.ts";
 *
 * const lines = new LineSplitter(8);
 * const bytes = (text: string) => new TextEncoder().encode(text);
 * assert.deepEqual(lines.push(bytes("ab")), []);
 * assert.deepEqual(lines.push(bytes("c\nd\n")), ["abc", "d"]);
 * assert.throws(() => lines.push(bytes("123456789")), LineTooLong);
 * ```
 * @module
 */
import { concatBytes } from "../bytes.ts";

/** A line passed the bound: what was held of it is dropped. */
export class LineTooLong extends Error {
  override name = "LineTooLong";
}

/** The newline byte. */
const LF = 0x0a;

export class LineSplitter {
  readonly #maxBytes: number;
  /** The unfinished line's bytes, chunk by chunk (joined once, when its newline comes). */
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  readonly #decoder = new TextDecoder();

  /** Lines of at most `maxBytes` bytes (the newline aside). */
  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /**
   * The lines `chunk` completes, decoded; throws {@link LineTooLong} (and
   * holds nothing more) when the line being read passes the bound.
   */
  push(chunk: Uint8Array): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let end = chunk.indexOf(LF); end >= 0; end = chunk.indexOf(LF, start)) {
      this.#hold(chunk.subarray(start, end));
      lines.push(this.#decoder.decode(this.#take()));
      start = end + 1;
    }
    if (start < chunk.length) this.#hold(chunk.subarray(start));
    return lines;
  }

  #hold(part: Uint8Array): void {
    this.#heldBytes += part.length;
    if (this.#heldBytes > this.#maxBytes) {
      this.#held = [];
      this.#heldBytes = 0;
      throw new LineTooLong(`a line over ${this.#maxBytes} bytes`);
    }
    if (part.length > 0) this.#held.push(part);
  }

  /** The held line's bytes, joined; nothing is held after. */
  #take(): Uint8Array {
    const parts = this.#held;
    this.#held = [];
    this.#heldBytes = 0;
    return concatBytes(parts);
  }
}
