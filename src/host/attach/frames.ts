/**
 * What flows on a `portal attach` connection after the welcome, both ways:
 * frames of one type byte, a 32-bit big-endian length and the payload. The
 * host sends the screen as it stands (`screen`, text to draw), then the
 * program's output as it comes (`output`, raw bytes), and at its end why
 * (`end`, JSON); the person's terminal sends what is typed (`input`, UTF-8).
 * Closing the connection detaches.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeFrame, FrameReader } from "./frames.ts";
 *
 * const bytes = new Uint8Array([...encodeFrame("input", "ab"), ...encodeFrame("end", "{}")]);
 * const frames = new FrameReader(ReadableStream.from([bytes.subarray(0, 3), bytes.subarray(3)]).getReader());
 * const first = await frames.next();
 * assert.deepEqual([first?.type, new TextDecoder().decode(first?.payload)], ["input", "ab"]);
 * assert.equal((await frames.next())?.type, "end");
 * assert.equal(await frames.next(), undefined);
 * ```
 * @module
 */
import { concatBytes } from "../../bytes.ts";

/** The kinds of frame. */
export type FrameType = "screen" | "output" | "end" | "input";

const CODES: Record<FrameType, number> = { screen: 0x53, output: 0x4f, end: 0x45, input: 0x49 };
const TYPES = new Map(Object.entries(CODES).map(([type, code]) => [code, type as FrameType]));

/** One frame. */
export interface Frame {
  type: FrameType;
  payload: Uint8Array;
}

/** A frame as bytes; a string payload goes as UTF-8. */
export function encodeFrame(type: FrameType, payload: Uint8Array | string): Uint8Array {
  const body = typeof payload === "string" ? new TextEncoder().encode(payload) : payload;
  const frame = new Uint8Array(5 + body.length);
  frame[0] = CODES[type];
  new DataView(frame.buffer).setUint32(1, body.length);
  frame.set(body, 5);
  return frame;
}

/** Reads frames off a byte stream (starting with what a line reader read past its lines). */
export class FrameReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #buffered: Uint8Array;

  constructor(
    reader: ReadableStreamDefaultReader<Uint8Array>,
    already: Uint8Array = new Uint8Array(),
  ) {
    this.#reader = reader;
    this.#buffered = already;
  }

  /** The next frame; undefined at the end of the stream. Throws on an unknown type. */
  async next(): Promise<Frame | undefined> {
    for (;;) {
      if (this.#buffered.length >= 5) {
        const size = new DataView(this.#buffered.buffer, this.#buffered.byteOffset).getUint32(1);
        if (this.#buffered.length >= 5 + size) {
          const type = TYPES.get(this.#buffered[0]);
          if (!type) throw new Error(`unknown attach frame ${this.#buffered[0]}`);
          const payload = this.#buffered.slice(5, 5 + size);
          this.#buffered = this.#buffered.slice(5 + size);
          return { type, payload };
        }
      }
      const { value, done } = await this.#reader.read();
      if (done) return undefined;
      this.#buffered = concatBytes([this.#buffered, value]);
    }
  }
}
