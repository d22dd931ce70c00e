/**
 * Turns stored records (raw bytes) into the text the read tools return: UTF-8
 * decoded, escape sequences stripped and, on a terminal, CRs dropped (see
 * {@link OutputDecoder}); stdin as written. A character or an escape sequence
 * split across records is whole again: each output source's decoder is first
 * fed the tail of the records just before the first one it decodes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RecordDecoder } from "./record_decoder.ts";
 * import type { RawRecord } from "./records.ts";
 *
 * const bytes = new TextEncoder().encode("\x1b[1mé\r\n");
 * const rows: RawRecord[] = [
 *   { seq: 1, timestamp: 1, source: "stdout", bytes: bytes.subarray(0, 5) },
 *   { seq: 2, timestamp: 2, source: "stdout", bytes: bytes.subarray(5) },
 * ];
 * const text = new RecordDecoder(true, (_, seq) => rows[seq - 2]);
 * // From the start: the first record holds only half of "é", nothing to show.
 * const all = text.oldest(rows, {});
 * assert.deepEqual(all.records.map((r) => r.content), ["é\n"]);
 * assert.equal(all.lastSeq, 2);
 * // From the second record alone: its decoder is primed with the first.
 * assert.equal(text.oldest(rows.slice(1), {}).records[0].content, "é\n");
 * ```
 * @module
 */
import { OutputDecoder } from "../text/decoder.ts";
import { Buffer } from "node:buffer";
import type { Encoding, Source } from "../model/schema.ts";
import type { IoRecord, QueryResult, RawRecord, RecordQuery } from "./records.ts";

/** Limits of one read (at least one record is returned, whatever `maxChars`). */
type TextLimits = Pick<RecordQuery, "maxChars" | "sinceTimestamp">;

/**
 * Bytes of earlier records a decoder is fed first: an escape sequence longer
 * than this is given up on by the stripper anyway (its `MAX_HELD`).
 */
const PRIME_BYTES = 4096 + 16;
const UTF8 = new TextDecoder();

/** Decodes the records of one read; see the module doc. */
export class RecordDecoder {
  readonly #dropCR: boolean;
  readonly #encoding: Encoding;
  readonly #before: (source: Source, seq: number) => RawRecord | undefined;

  /**
   * `dropCR`: the output came through a terminal. `before(source, seq)`: the
   * record of `source` just before `seq`, if it is still stored. `base64`:
   * each record's bytes as they are, nothing decoded or stripped.
   */
  constructor(
    dropCR: boolean,
    before: (source: Source, seq: number) => RawRecord | undefined,
    encoding: Encoding = "text",
  ) {
    this.#dropCR = dropCR;
    this.#encoding = encoding;
    this.#before = before;
  }

  /** `rows` in order; the budget goes to the oldest. */
  oldest(rows: Iterable<RawRecord>, limits: TextLimits): QueryResult {
    const { maxChars, sinceTimestamp } = limits;
    const decode = this.#decoders();
    const records: IoRecord[] = [];
    let chars = 0;
    let complete = true;
    let lastSeq: number | undefined;
    for (const row of rows) {
      if (sinceTimestamp !== undefined && row.timestamp < sinceTimestamp) continue;
      const content = decode(row);
      if (content !== "") {
        if (maxChars !== undefined && records.length > 0 && chars + content.length > maxChars) {
          complete = false;
          break;
        }
        chars += content.length;
        records.push({ seq: row.seq, timestamp: row.timestamp, source: row.source, content });
      }
      lastSeq = row.seq;
    }
    return { records, complete, lastSeq };
  }

  /**
   * `rows` newest first; the budget goes to the newest, returned oldest
   * first (the oldest returned may reach back past the budget: cut it). Rows are decoded in groups, oldest first within each: a group is
   * as many bytes as the budget left (text is never longer than its bytes).
   */
  newest(rows: Iterable<RawRecord>, limits: TextLimits): QueryResult {
    const { maxChars = Infinity, sinceTimestamp = -Infinity } = limits;
    const iterator = rows[Symbol.iterator]();
    const next = () => {
      const step = iterator.next();
      return step.done || step.value.timestamp < sinceTimestamp ? undefined : step.value;
    };
    const groups: IoRecord[][] = [];
    let chars = 0;
    let row = next();
    while (row !== undefined && chars < maxChars) {
      const group: RawRecord[] = [];
      for (let bytes = 0; row !== undefined && bytes < maxChars - chars; row = next()) {
        group.push(row);
        bytes += row.bytes.length;
      }
      const decode = this.#decoders();
      const decoded: IoRecord[] = [];
      for (const raw of group.reverse()) {
        const content = decode(raw);
        if (content === "") continue;
        decoded.push({ seq: raw.seq, timestamp: raw.timestamp, source: raw.source, content });
        chars += content.length;
      }
      groups.unshift(decoded);
    }
    iterator.return?.(); // Lets go of what it reads (a statement holds the file's lock).
    const records = groups.flat();
    // `row` is the first row not decoded: older output within the window is left out.
    let complete = row === undefined;
    // Records wholly outside the budget go; the one it starts inside stays, for the
    // caller to cut (so a budget is filled to the last character).
    let first = 0;
    while (records.length - first > 1 && chars - records[first].content.length >= maxChars) {
      chars -= records[first++].content.length;
      complete = false;
    }
    if (chars > maxChars) complete = false;
    return { records: records.slice(first), complete };
  }

  /** A fresh decoder per source, each primed from the records before its first. */
  #decoders(): (row: RawRecord) => string {
    const decoders: Partial<Record<Source, OutputDecoder>> = {};
    if (this.#encoding === "base64") return (row) => Buffer.from(row.bytes).toString("base64");
    return (row) => {
      if (row.source === "stdin") return UTF8.decode(row.bytes);
      let decoder = decoders[row.source];
      if (decoder === undefined) {
        decoder = decoders[row.source] = new OutputDecoder({ dropCR: this.#dropCR });
        for (const earlier of this.#earlier(row)) decoder.decode(earlier);
      }
      return decoder.decode(row.bytes);
    };
  }

  /** The last {@link PRIME_BYTES} of the records of `row.source` before it, oldest first. */
  #earlier(row: RawRecord): Uint8Array[] {
    const tails: Uint8Array[] = [];
    let seq = row.seq;
    for (let need = PRIME_BYTES; need > 0 && tails.length < 4;) {
      const before = this.#before(row.source, seq);
      if (before === undefined) break;
      const tail = before.bytes.subarray(Math.max(0, before.bytes.length - need));
      tails.unshift(tail);
      need -= tail.length;
      seq = before.seq;
    }
    return tails;
  }
}
