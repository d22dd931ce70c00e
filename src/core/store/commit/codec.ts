/**
 * A commit batch (batch.ts) written into shared memory and read back
 * in place, so the commit Worker gets it without a message: a message to a
 * Worker and its answer take a millisecond or two each, as long as writing a
 * MiB, and a flood's commits would wait on them.
 *
 * Layout: frame count, delete count (u32 each); each delete, two f64; each
 * frame, key and timestamp (f64), source, count and content length (u32) and
 * layout length (i32, -1 for none), then its content and layout; all 8-aligned.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeBatch, encodeBatch } from "./codec.ts";
 *
 * const buffer = new SharedArrayBuffer(64, { maxByteLength: 1 << 20 });
 * const content = new Uint8Array([1, 2, 3]);
 * const frame = { key: 2 ** 33 + 1, timestamp: 5, source: 1, content, count: 1, layout: null };
 * encodeBatch({ frames: [frame], deletes: [[2 ** 33, 2 ** 33 + 9]] }, buffer);
 * assert.deepEqual(decodeBatch(buffer), { frames: [frame], deletes: [[2 ** 33, 2 ** 33 + 9]] });
 * ```
 * @module
 */
import type { CommitBatch } from "./batch.ts";
import type { FrameRow } from "../frames/packing.ts";

const FRAME_HEADER = 32;
const align = (n: number) => (n + 7) & ~7;

/** Bytes {@link encodeBatch} needs for `batch`. */
function encodedSize({ frames, deletes }: CommitBatch): number {
  let size = 8 + 16 * deletes.length;
  for (const f of frames) {
    size += FRAME_HEADER + align(f.content.length) + align(f.layout?.length ?? 0);
  }
  return size;
}

/** Writes `batch` at the start of `buffer`, growing it if need be. */
export function encodeBatch(batch: CommitBatch, buffer: SharedArrayBuffer): void {
  const size = encodedSize(batch);
  if (size > buffer.byteLength) {
    if (size > buffer.maxByteLength) {
      throw new Error(`a commit of ${size} bytes is past ${buffer.maxByteLength}`);
    }
    buffer.grow(Math.min(buffer.maxByteLength, Math.max(size, 2 * buffer.byteLength)));
  }
  const view = new DataView(buffer);
  const bytes = new Uint8Array(buffer);
  view.setUint32(0, batch.frames.length, true);
  view.setUint32(4, batch.deletes.length, true);
  let at = 8;
  for (const [from, to] of batch.deletes) {
    view.setFloat64(at, from, true);
    view.setFloat64(at + 8, to, true);
    at += 16;
  }
  for (const f of batch.frames) {
    view.setFloat64(at, f.key, true);
    view.setFloat64(at + 8, f.timestamp, true);
    view.setUint32(at + 16, f.source, true);
    view.setUint32(at + 20, f.count, true);
    view.setUint32(at + 24, f.content.length, true);
    view.setInt32(at + 28, f.layout === null ? -1 : f.layout.length, true);
    at += FRAME_HEADER;
    bytes.set(f.content, at);
    at += align(f.content.length);
    if (f.layout !== null) bytes.set(f.layout, at);
    at += align(f.layout?.length ?? 0);
  }
}

/** The batch at the start of `buffer`; its contents are views of it, not copies. */
export function decodeBatch(buffer: SharedArrayBuffer): CommitBatch {
  const view = new DataView(buffer);
  const frameCount = view.getUint32(0, true);
  const deletes: [number, number][] = [];
  let at = 8;
  for (let i = view.getUint32(4, true); i > 0; i--) {
    deletes.push([view.getFloat64(at, true), view.getFloat64(at + 8, true)]);
    at += 16;
  }
  const frames: FrameRow[] = [];
  for (let i = 0; i < frameCount; i++) {
    const contentLength = view.getUint32(at + 24, true);
    const layoutLength = view.getInt32(at + 28, true);
    const frame: FrameRow = {
      key: view.getFloat64(at, true),
      timestamp: view.getFloat64(at + 8, true),
      source: view.getUint32(at + 16, true),
      count: view.getUint32(at + 20, true),
      content: new Uint8Array(buffer, at + FRAME_HEADER, contentLength),
      layout: null,
    };
    at += FRAME_HEADER + align(contentLength);
    if (layoutLength >= 0) frame.layout = new Uint8Array(buffer, at, layoutLength);
    at += align(Math.max(0, layoutLength));
    frames.push(frame);
  }
  return { frames, deletes };
}
