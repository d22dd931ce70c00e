/**
 * Lines out of a byte stream, each at most a bound: what MCP over stdio (or
 * a host's client socket) reads from a client, and a remote link from the
 * other machine's Portal, one JSON-RPC message a line. Each chunk is
 * searched once for its newlines. A line past the bound is not held: its
 * reader hears `skipping` at once (a remote link then ends), its bytes are
 * skipped as they stream in (only its first and last {@link KEPT_BYTES}
 * are kept), and `tooLong` hears its size and those ends once it ends (a
 * server then answers the request whose id they show). A newline byte is
 * never inside a UTF-8 sequence: each line decodes alone.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BoundedLines } from "./bounded_lines.ts";
 *
 * const lines: string[] = [];
 * const skipped: number[] = [];
 * const reader = new BoundedLines(8, {
 *   line: (text) => lines.push(text),
 *   skipping: () => lines.push("(skipping)"),
 *   tooLong: ({ size }) => skipped.push(size),
 * });
 * const bytes = (s: string) => new TextEncoder().encode(s);
 * reader.push(bytes('{"a":1}\n{"b":'));
 * reader.push(bytes('"much too long"}\n{}\n'));
 * assert.deepEqual([lines, skipped], [['{"a":1}', "(skipping)", "{}"], [21]]);
 * ```
 * @module
 */
import { concatBytes } from "./bytes.ts";

/** Bytes kept of each end of a skipped line: where a request's id usually is. */
const KEPT_BYTES = 4096;

/** A line too long to read: its size, and its first and last {@link KEPT_BYTES}. */
export interface SkippedLine {
  size: number;
  head: string;
  tail: string;
}

/** A copy of the first `n` bytes of `parts` taken as one. */
export function firstBytes(parts: Uint8Array[], n: number): Uint8Array {
  const kept: Uint8Array[] = [];
  for (let i = 0; i < parts.length && n > 0; i++) {
    kept.push(parts[i].subarray(0, n));
    n -= kept.at(-1)!.length;
  }
  return concatBytes(kept).slice();
}

/** A copy of the last `n` bytes of `parts` taken as one. */
function lastBytes(parts: Uint8Array[], n: number): Uint8Array {
  const kept: Uint8Array[] = [];
  for (let i = parts.length - 1; i >= 0 && n > 0; i--) {
    kept.unshift(parts[i].subarray(Math.max(0, parts[i].length - n)));
    n -= kept[0].length;
  }
  return concatBytes(kept).slice();
}

/** Who hears the lines. */
export interface LineSink {
  line(text: string): void;
  /** A line has just passed the bound; its bytes are skipped from here on. */
  skipping?(): void;
  /** The skipped line has ended. */
  tooLong(skipped: SkippedLine): void;
}

/** Splits a byte stream into lines of at most `maxBytes`; longer ones are skipped, not kept. */
export class BoundedLines {
  readonly #max: number;
  readonly #on: LineSink;
  #parts: Uint8Array[] = [];
  #size = 0;
  #skipping: { head: Uint8Array; tail: Uint8Array; size: number } | null = null;
  /** Each line decodes alone (not `stream`), so one decoder serves them all. */
  readonly #decoder = new TextDecoder();

  constructor(maxBytes: number, on: LineSink) {
    this.#max = maxBytes;
    this.#on = on;
  }

  push(chunk: Uint8Array): void {
    for (let start = 0; start < chunk.length;) {
      const newline = chunk.indexOf(0x0a, start);
      this.#take(chunk.subarray(start, newline < 0 ? chunk.length : newline));
      if (newline < 0) return;
      this.#endLine();
      start = newline + 1;
    }
  }

  #take(part: Uint8Array): void {
    if (part.length === 0) return;
    if (this.#skipping) {
      const skipping = this.#skipping;
      skipping.size += part.length;
      skipping.tail = lastBytes([skipping.tail, part], KEPT_BYTES);
      return;
    }
    if (this.#size + part.length <= this.#max) {
      // A view on a larger buffer is copied, so that a held line keeps no more than its bytes.
      this.#parts.push(part.byteLength === part.buffer.byteLength ? part : part.slice());
      this.#size += part.length;
      return;
    }
    // Only its ends are copied: a line at the bound is not joined whole once more.
    const parts = [...this.#parts, part];
    this.#skipping = {
      head: firstBytes(parts, KEPT_BYTES),
      tail: lastBytes(parts, KEPT_BYTES),
      size: this.#size + part.length,
    };
    this.#parts = [];
    this.#size = 0;
    this.#on.skipping?.();
  }

  #endLine(): void {
    const skipping = this.#skipping;
    if (skipping) {
      this.#skipping = null;
      this.#on.tooLong({
        size: skipping.size,
        head: this.#decoder.decode(skipping.head),
        tail: this.#decoder.decode(skipping.tail),
      });
      return;
    }
    const line = this.#decoder.decode(concatBytes(this.#parts));
    this.#parts = [];
    this.#size = 0;
    this.#on.line(line.endsWith("\r") ? line.slice(0, -1) : line);
  }
}
