/**
 * What flows on a `portal attach` connection after the welcome, both ways:
 * frames of one type byte, a 32-bit big-endian length and the payload. The
 * host sends the screen as it stands (`screen`, text to draw), then the
 * program's output as it comes (`output`, raw bytes), and at its end why
 * (`end`, JSON); a terminal that fell behind gets a `screen` again in place
 * of what it did not take (attach/terminal_feed.ts). The person's terminal
 * sends what is typed (`input`, UTF-8). Closing the connection detaches.
 *
 * A reader takes frames up to a size it is given: a header that claims more,
 * or an unknown type, is refused before its payload is awaited or allocated.
 * Chunks are kept as they come and joined once per frame (linear time, where
 * joining the buffer again on every chunk cost a 60 MiB frame seconds).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeFrame, FrameReader } from "./frames.ts";
 *
 * const bytes = new Uint8Array([...encodeFrame("input", "ab"), ...encodeFrame("end", "{}")]);
 * const stream = (...chunks: Uint8Array[]) => ReadableStream.from(chunks).getReader();
 * const frames = new FrameReader(stream(bytes.subarray(0, 3), bytes.subarray(3)), 16);
 * const first = await frames.next();
 * assert.deepEqual([first?.type, new TextDecoder().decode(first?.payload)], ["input", "ab"]);
 * assert.equal((await frames.next())?.type, "end");
 * assert.equal(await frames.next(), undefined);
 * const big = new FrameReader(stream(encodeFrame("input", "x".repeat(17)).subarray(0, 5)), 16);
 * await assert.rejects(big.next(), /larger than 16 bytes/);
 * ```
 * @module
 */
import { firstBytes } from "../../bounded_lines.ts";

/** The kinds of frame. */
export type FrameType = "screen" | "output" | "end" | "input";

const CODES: Record<FrameType, number> = { screen: 0x53, output: 0x4f, end: 0x45, input: 0x49 };
const TYPES = new Map(Object.entries(CODES).map(([type, code]) => [code, type as FrameType]));
const HEADER_BYTES = 5;

/** One frame. */
export interface Frame {
  type: FrameType;
  payload: Uint8Array;
}

/** A frame as bytes; a string payload goes as UTF-8. */
export function encodeFrame(type: FrameType, payload: Uint8Array | string): Uint8Array {
  const body = typeof payload === "string" ? new TextEncoder().encode(payload) : payload;
  const frame = new Uint8Array(HEADER_BYTES + body.length);
  frame[0] = CODES[type];
  new DataView(frame.buffer).setUint32(1, body.length);
  frame.set(body, HEADER_BYTES);
  return frame;
}

/** Reads frames off a byte stream (starting with what a line reader read past its lines). */
export class FrameReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #maxBytes: number;
  /** What was read and not yet taken, in order; `#size` bytes in all. */
  #chunks: Uint8Array[] = [];
  #size = 0;

  /** Frames whose payload is larger than `maxBytes` are refused (`next` throws). */
  constructor(
    reader: ReadableStreamDefaultReader<Uint8Array>,
    maxBytes: number,
    already: Uint8Array = new Uint8Array(),
  ) {
    this.#reader = reader;
    this.#maxBytes = maxBytes;
    this.#add(already);
  }

  /**
   * The next frame; undefined at the end of the stream. Throws on an unknown
   * type or a payload over the size given, as soon as its header is read.
   */
  async next(): Promise<Frame | undefined> {
    let header: { type: FrameType; size: number } | undefined;
    for (;;) {
      if (!header && this.#size >= HEADER_BYTES) header = this.#header();
      if (header && this.#size >= HEADER_BYTES + header.size) {
        const frame = this.#take(HEADER_BYTES + header.size);
        return { type: header.type, payload: frame.subarray(HEADER_BYTES) };
      }
      const { value, done } = await this.#reader.read();
      if (done) return undefined;
      this.#add(value);
    }
  }

  #header(): { type: FrameType; size: number } {
    const bytes = firstBytes(this.#chunks, HEADER_BYTES);
    const type = TYPES.get(bytes[0]);
    if (!type) throw new Error(`unknown attach frame ${bytes[0]}`);
    const size = new DataView(bytes.buffer, bytes.byteOffset).getUint32(1);
    if (size > this.#maxBytes) {
      throw new Error(`an attach frame of ${size} bytes is larger than ${this.#maxBytes} bytes`);
    }
    return { type, size };
  }

  #add(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#size += chunk.length;
  }

  /**
   * The first `n` bytes (there are that many), removed: copied once into one array (so that a
   * small frame does not hold a large chunk's memory).
   */
  #take(n: number): Uint8Array {
    const taken = new Uint8Array(n);
    for (let at = 0; at < n;) {
      const first = this.#chunks[0];
      const part = first.subarray(0, n - at);
      taken.set(part, at);
      at += part.length;
      if (part.length === first.length) this.#chunks.shift();
      else this.#chunks[0] = first.subarray(part.length);
    }
    this.#size -= n;
    return taken;
  }
}
