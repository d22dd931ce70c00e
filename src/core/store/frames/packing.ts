/**
 * How records become rows of the `records` table. A row (a *frame*) holds a
 * run of records of one process and one source with consecutive sequence
 * numbers: their bytes one after the other in `content`, the first record's
 * key and timestamp, how many records it holds, and (for more than one) a
 * `layout` of each record's length and timestamp step. A flood's chunks are
 * big enough to be a frame each; a chatty program's tiny records share one
 * row per commit, instead of paying ~24 bytes of row overhead per 6-byte
 * "tick" and making the file grow five times faster than the output.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { packFrames, unpackFrame } from "./packing.ts";
 *
 * const bytes = (s: string) => new TextEncoder().encode(s);
 * const records = [
 *   { key: 1, record: { seq: 1, timestamp: 10, source: "stdout" as const, bytes: bytes("ab") } },
 *   { key: 2, record: { seq: 2, timestamp: 25, source: "stdout" as const, bytes: bytes("c") } },
 * ];
 * const [frame] = packFrames(records);
 * assert.equal(frame.count, 2);
 * const back = [...unpackFrame(frame, 0)];
 * assert.deepEqual(back.map((r) => [r.seq, r.timestamp, new TextDecoder().decode(r.bytes)]), [
 *   [1, 10, "ab"],
 *   [2, 25, "c"],
 * ]);
 * ```
 * @module
 */
import { concatBytes } from "../../../bytes.ts";
import { type RawRecord, SOURCE_CODE, SOURCE_NAME } from "../records.ts";

/** A frame grows by small records only up to this many bytes (a flood's chunks stand alone). */
export const FRAME_BYTES = 64 * 1024;
/** Records per frame at most: a frame holding a record starts at most this many keys before it. */
export const FRAME_RECORDS = 256;

/** A row of the records table. */
export interface FrameRow {
  /** `process_id · 2³² + seq` of its first record. */
  key: number;
  /** Of its first record. */
  timestamp: number;
  /** Source code (see {@link SOURCE_CODE}). */
  source: number;
  content: Uint8Array;
  /** Records it holds. */
  count: number;
  /** Lengths (all but the last) then timestamp steps, as varints; null for one record. */
  layout: Uint8Array | null;
}

/** What a frame says of one of its records, without its bytes. */
export interface RecordMeta {
  seq: number;
  timestamp: number;
  /** Where its bytes are in the frame's content. */
  start: number;
  end: number;
}

/**
 * Packs records (keyed, in key order per process) into frames: consecutive
 * records of one process and source join a frame while it stays within
 * {@link FRAME_BYTES} and {@link FRAME_RECORDS}.
 */
export function packFrames(records: { key: number; record: RawRecord }[]): FrameRow[] {
  const frames: FrameRow[] = [];
  let run: RawRecord[] = [];
  let runKey = 0;
  let runBytes = 0;
  const close = () => {
    if (run.length > 0) frames.push(frameOf(runKey, run));
    run = [];
    runBytes = 0;
  };
  for (const { key, record } of records) {
    const last = run.at(-1);
    const joins = last !== undefined && key === runKey + run.length &&
      record.source === last.source && run.length < FRAME_RECORDS &&
      runBytes + record.bytes.length <= FRAME_BYTES;
    if (!joins) {
      close();
      runKey = key;
    }
    run.push(record);
    runBytes += record.bytes.length;
  }
  close();
  return frames;
}

/** The records of a frame, oldest first; `base` is its process's first key. */
export function* unpackFrame(row: FrameRow, base: number): Generator<RawRecord> {
  const source = SOURCE_NAME[row.source];
  for (const meta of frameRecords({ ...row, size: row.content.length }, base)) {
    yield {
      seq: meta.seq,
      timestamp: meta.timestamp,
      source,
      bytes: row.content.subarray(meta.start, meta.end),
    };
  }
}

/** Where each record of a frame is, and its seq and timestamp. */
export function frameRecords(
  row: Pick<FrameRow, "key" | "timestamp" | "count" | "layout"> & { size: number },
  base: number,
): RecordMeta[] {
  const first = row.key - base;
  if (row.layout === null) {
    return [{ seq: first, timestamp: row.timestamp, start: 0, end: row.size }];
  }
  const values = readVarints(row.layout);
  const n = row.count;
  const metas: RecordMeta[] = [];
  let start = 0;
  let timestamp = row.timestamp;
  for (let i = 0; i < n; i++) {
    if (i > 0) timestamp += values[n - 1 + i - 1];
    const end = i < n - 1 ? start + values[i] : row.size;
    metas.push({ seq: first + i, timestamp, start, end });
    start = end;
  }
  return metas;
}

function frameOf(key: number, run: RawRecord[]): FrameRow {
  const first = run[0];
  if (run.length === 1) {
    const { timestamp, source, bytes: content } = first;
    return { key, timestamp, source: SOURCE_CODE[source], content, count: 1, layout: null };
  }
  const content = concatBytes(run.map((record) => record.bytes));
  const values: number[] = [];
  for (let i = 0; i < run.length - 1; i++) values.push(run[i].bytes.length);
  for (let i = 1; i < run.length; i++) values.push(run[i].timestamp - run[i - 1].timestamp);
  return {
    key,
    timestamp: first.timestamp,
    source: SOURCE_CODE[first.source],
    content,
    count: run.length,
    layout: writeVarints(values),
  };
}

/** Unsigned LEB128, for values up to 2⁵³ (timestamps are nanoseconds). */
function writeVarints(values: number[]): Uint8Array {
  const out: number[] = [];
  for (let value of values) {
    while (value >= 0x80) {
      out.push((value % 0x80) | 0x80);
      value = Math.floor(value / 0x80);
    }
    out.push(value);
  }
  return new Uint8Array(out);
}

function readVarints(bytes: Uint8Array): number[] {
  const values: number[] = [];
  let value = 0;
  let scale = 1;
  for (const byte of bytes) {
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      values.push(value);
      value = 0;
      scale = 1;
    } else scale *= 0x80;
  }
  return values;
}
