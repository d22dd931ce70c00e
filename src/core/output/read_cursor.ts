/**
 * `process_read_new`'s cursor: what of a process's stored output was not
 * returned yet, read under a hard cap. `max_chars` bounds the content of
 * every reply, even when one record is longer (a PTY chunk can be 64 KiB):
 * such a record is cut, and the cursor then points inside it, so every
 * character is still returned exactly once. Every reply also stays within
 * `REPLY_OUTPUT_BYTES` of JSON (reply_size.ts).
 *
 * A waiting call's `output` is the unread text in one string: when it is
 * longer than its cap, the head and the tail are kept around a marker that
 * counts what was left out (and consumed: `process_read` still has it).
 * Records are stored as raw bytes and decoded as they are read, so that
 * count decodes the omitted middle: it costs as much as the unread output,
 * which the store's cap (`PORTAL_MAX_OUTPUT_BYTES`) bounds.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RecordStore } from "../store/record_store.ts";
 * import { ReadCursor } from "./read_cursor.ts";
 *
 * const store = new RecordStore(":memory:");
 * const cursor = new ReadCursor(store, 1, { dropCR: false });
 * const bytes = new TextEncoder().encode("abcdef");
 * store.append(1, { seq: 1, timestamp: 1, source: "stdout", bytes });
 * assert.deepEqual(cursor.page(["stdout"], 4).records.map((r) => r.content), ["abcd"]);
 * assert.deepEqual(cursor.page(["stdout"], 4).records.map((r) => r.content), ["ef"]);
 * assert.deepEqual(cursor.page(["stdout"], 4).records, []);
 * store.close();
 * ```
 * @module
 */
import { REPLY_OUTPUT_BYTES } from "../../limits.ts";
import type { OutputSource } from "../../terminal/terminal.ts";
import type { RecordStore } from "../store/record_store.ts";
import type { IoRecord, Page } from "../store/records.ts";
import { fitEnd, jsonBytes, RECORD_OVERHEAD_BYTES } from "./reply_size.ts";

/**
 * A cursor's place: after record `seq`, or inside it once `offset` characters
 * were returned, with `rest` bytes (UTF-8) of its text still to come.
 */
interface Position {
  seq: number;
  offset: number;
  rest: number;
}

/** Unread output as one text; `omitted` characters were left out of its middle. */
export interface Text {
  text: string;
  omitted: number;
}

/** Room kept for the marker that stands for an omitted middle. */
const MARKER_ROOM = 100;
/** Below this cap, a text keeps only its tail: a head and a marker would not fit. */
const MIN_HEAD_AND_TAIL = 2 * MARKER_ROOM;

const encoder = new TextEncoder();

/** `process_read_new`'s position in one process's output, per source. */
export class ReadCursor {
  readonly #store: RecordStore;
  readonly #processId: number;
  /** The output came through a terminal: its CRs are dropped. */
  readonly #dropCR: boolean;
  readonly #positions: Record<OutputSource, Position> = {
    stdout: { seq: 0, offset: 0, rest: 0 },
    stderr: { seq: 0, offset: 0, rest: 0 },
  };

  constructor(store: RecordStore, processId: number, options: { dropCR: boolean }) {
    this.#store = store;
    this.#processId = processId;
    this.#dropCR = options.dropCR;
  }

  /** Where the cursor of `source` is: after record `seq`, or `offset` characters into it. */
  placeOf(source: OutputSource): { seq: number; offset: number } {
    const { seq, offset } = this.#positions[source];
    return { seq, offset };
  }

  /**
   * Record `seq` of `source` was dropped: if the cursor was inside it, the
   * bytes of the text it had not returned yet (now lost), and the cursor
   * moves past it.
   */
  droppedInside(source: OutputSource, seq: number): number {
    const { offset, rest } = this.#positions[source];
    if (this.#positions[source].seq !== seq || offset === 0) return 0;
    this.#positions[source] = { seq, offset: 0, rest: 0 };
    return rest;
  }

  /** Back to the start (the records were deleted). */
  reset(): void {
    for (const source of ["stdout", "stderr"] as const) {
      this.#positions[source] = { seq: 0, offset: 0, rest: 0 };
    }
  }

  /**
   * The next records, oldest first, at most `maxChars` of content (a longer
   * record is cut); the cursor moves past what is returned.
   */
  page(sources: OutputSource[], maxChars: number): Page {
    const budget = maxChars + this.#skipped(sources);
    const { records, complete, lastSeq } = this.#query(sources, { maxChars: budget });
    const unread = records.map((record) => ({ ...record, content: this.#unreadPart(record) }));
    const { page, cut } = fitStart(unread, maxChars);
    const whole = complete && !cut && page.length === records.length;
    // Records that decode to nothing (escape sequences only) are passed too.
    const end = whole ? Math.max(lastSeq ?? 0, page.at(-1)?.seq ?? 0) : page.at(-1)?.seq;
    if (end !== undefined && end > 0) {
      this.skip(sources, end);
      if (cut) {
        // The cursor stops inside the last record, past all of it that was returned.
        const i = page.length - 1;
        const taken = page[i].content.length;
        this.#positions[records[i].source as OutputSource] = {
          seq: records[i].seq,
          offset: records[i].content.length - unread[i].content.length + taken,
          rest: encoder.encode(unread[i].content.slice(taken)).length,
        };
      }
    }
    return { records: page, complete: whole };
  }

  /**
   * Everything unread as one text, at most `maxChars` long: past that, its
   * head and tail around a marker. The cursor moves to `endSeq` (the newest
   * record of the process). One read of the records: the unread output is
   * decoded once, whatever its length (see the module doc).
   */
  text(sources: OutputSource[], maxChars: number, endSeq: number): Text {
    const { records } = this.#query(sources, {});
    const unread = records.map((record) => ({ ...record, content: this.#unreadPart(record) }));
    const whole = join(unread);
    const headChars = maxChars < MIN_HEAD_AND_TAIL ? 0 : Math.floor((maxChars - MARKER_ROOM) / 2);
    // The head is the page a read of `headChars` would return: whole records, as a query gives.
    const headRecords = oldestWithin(unread, records, headChars + this.#skipped(sources));
    this.skip(sources, endSeq);
    if (whole.length <= maxChars && jsonBytes(whole) <= REPLY_OUTPUT_BYTES) {
      return { text: whole, omitted: 0 };
    }
    const head = headChars === 0 ? "" : join(fitStart(headRecords, headChars).page);
    const room = maxChars < MIN_HEAD_AND_TAIL ? maxChars : maxChars - MARKER_ROOM - head.length;
    const budget = REPLY_OUTPUT_BYTES - jsonBytes(head) - MARKER_ROOM;
    const tail = fitEnd(whole.slice(head.length), Math.max(0, room), budget);
    // What lies between the head and the tail is counted, and passed over.
    const omitted = whole.length - head.length - tail.length;
    if (maxChars < MIN_HEAD_AND_TAIL) return { text: tail, omitted };
    const marker = `\n[… ${omitted} characters omitted; process_read has them …]\n`;
    return { text: head + marker + tail, omitted };
  }

  /**
   * Moves the cursor of each of `sources` past record `seq` (what a rendered
   * screen stood for, say), never back: a source read further on its own
   * (`source: "stderr"`) keeps its place.
   */
  skip(sources: OutputSource[], seq: number): void {
    for (const source of sources) {
      if (this.#positions[source].seq <= seq) this.#positions[source] = { seq, offset: 0, rest: 0 };
    }
  }

  /**
   * Moves the cursor of `source` into record `seq`, whose decoded text ends
   * with `rest` (what followed a position in its bytes, decoded alone): the
   * next read starts there. Never moves it back.
   */
  skipInto(source: OutputSource, seq: number, rest: string): void {
    if (this.#positions[source].seq >= seq) return;
    this.skip([source], seq - 1);
    const [record] = this.#query([source], { maxChars: 1 }).records;
    if (record?.seq !== seq) return;
    const offset = Math.max(0, record.content.length - rest.length);
    const remaining = encoder.encode(record.content.slice(offset)).length;
    if (offset > 0) this.#positions[source] = { seq, offset, rest: remaining };
  }

  /** The last `chars` characters of unread output, without moving the cursor. */
  peek(sources: OutputSource[], chars: number): string {
    const { records } = this.#query(sources, { maxChars: Math.max(1, chars), newest: true });
    return fitEnd(records.map((r) => this.#unreadPart(r)).join(""), chars, REPLY_OUTPUT_BYTES);
  }

  /** Characters of a record the cursor is inside that were returned already (a query counts them). */
  #skipped(sources: OutputSource[]): number {
    return Math.max(...sources.map((s) => this.#positions[s].offset));
  }

  #query(sources: OutputSource[], q: { maxChars?: number; newest?: boolean }) {
    const afterSeq: Partial<Record<OutputSource, number>> = {};
    for (const s of sources) {
      const { seq, offset } = this.#positions[s];
      afterSeq[s] = offset > 0 ? seq - 1 : seq;
    }
    return this.#store.query(this.#processId, { sources, afterSeq, dropCR: this.#dropCR, ...q });
  }

  /** The part of `record` the cursor has not passed yet. */
  #unreadPart(record: IoRecord): string {
    const position = this.#positions[record.source as OutputSource];
    return record.seq === position.seq ? record.content.slice(position.offset) : record.content;
  }
}

function join(records: IoRecord[]): string {
  return records.map((r) => r.content).join("");
}

/**
 * The first of `unread` that a query oldest first with `maxChars` returns:
 * while their whole `records` fit (at least one).
 */
function oldestWithin(unread: IoRecord[], records: IoRecord[], maxChars: number): IoRecord[] {
  let chars = 0;
  let n = 0;
  while (n < records.length && (n === 0 || chars + records[n].content.length <= maxChars)) {
    chars += records[n++].content.length;
  }
  return unread.slice(0, n);
}

/**
 * The oldest of `records` within `maxChars` of content and a reply's bytes
 * of JSON; `cut`: the last one kept is only its start (a page holds at least
 * one character).
 */
function fitStart(records: IoRecord[], maxChars: number): { page: IoRecord[]; cut: boolean } {
  const page: IoRecord[] = [];
  let roomChars = maxChars;
  let roomBytes = REPLY_OUTPUT_BYTES;
  for (const record of records) {
    const { content } = record;
    const cost = jsonBytes(content) + RECORD_OVERHEAD_BYTES;
    if (content.length > roomChars || cost > roomBytes) {
      const fit = Math.min(roomChars, Math.floor(content.length * roomBytes / cost));
      const take = cutPoint(content, page.length === 0 ? Math.max(1, fit) : fit);
      if (take > 0) page.push({ ...record, content: content.slice(0, take) });
      return { page, cut: take > 0 };
    }
    page.push(record);
    roomChars -= content.length;
    roomBytes -= cost;
  }
  return { page, cut: false };
}

/** Where to cut `text` to keep at most `n` characters, never between a surrogate pair. */
function cutPoint(text: string, n: number): number {
  if (n >= text.length) return text.length;
  const code = text.charCodeAt(n - 1);
  return n > 1 && code >= 0xd800 && code <= 0xdbff ? n - 1 : Math.max(0, n);
}
