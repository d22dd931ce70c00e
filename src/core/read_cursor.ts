/**
 * Reading a process's stored output under a hard cap. `max_chars` bounds
 * the content of every reply, even when one record is longer (a PTY chunk
 * can be 64 KiB): such a record is cut, and `process_read_new`'s cursor then
 * points inside it, so every character is still returned exactly once. Every
 * reply also stays within {@link REPLY_OUTPUT_BYTES} of JSON, far from the
 * 10 MiB message limit of the official SDK client.
 *
 * A waiting call's `output` is the unread text in one string: when it is
 * longer than its cap, the head and the tail are kept around a marker that
 * counts what was left out (and consumed: `process_read` still has it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RecordStore } from "./record_store.ts";
 * import { ReadCursor } from "./read_cursor.ts";
 *
 * const store = new RecordStore(":memory:");
 * const cursor = new ReadCursor(store, 1);
 * store.append(1, { seq: 1, timestamp: 1, source: "stdout", content: "abcdef" });
 * cursor.appended("stdout", 6);
 * assert.deepEqual(cursor.page(["stdout"], 4).records.map((r) => r.content), ["abcd"]);
 * assert.deepEqual(cursor.page(["stdout"], 4).records.map((r) => r.content), ["ef"]);
 * assert.equal(cursor.unread(["stdout"]), 0);
 * store.close();
 * ```
 * @module
 */
import { REPLY_OUTPUT_BYTES } from "../limits.ts";
import type { OutputSource } from "../terminal/terminal.ts";
import type { IoRecord, RecordStore } from "./record_store.ts";

/** A cursor's place: after record `seq`, or inside it once `offset` characters were returned. */
interface Position {
  seq: number;
  offset: number;
}

/** A page of records; `complete` is false when more remained. */
export interface Page {
  records: IoRecord[];
  complete: boolean;
}

/** Unread output as one text; `omitted` characters were left out of its middle. */
export interface Text {
  text: string;
  omitted: number;
}

/** JSON a record costs beyond its content: timestamp, source, keys and punctuation. */
const RECORD_OVERHEAD_BYTES = 64;
/** Room kept for the marker that stands for an omitted middle. */
const MARKER_ROOM = 100;
/** Below this cap, a text keeps only its tail: a head and a marker would not fit. */
const MIN_HEAD_AND_TAIL = 2 * MARKER_ROOM;

const encoder = new TextEncoder();

/** Bytes `text` takes as a JSON string. */
export function jsonBytes(text: string): number {
  return encoder.encode(JSON.stringify(text)).length;
}

/** `process_read_new`'s position in one process's output, per source. */
export class ReadCursor {
  readonly #store: RecordStore;
  readonly #processId: number;
  readonly #positions: Record<OutputSource, Position> = {
    stdout: { seq: 0, offset: 0 },
    stderr: { seq: 0, offset: 0 },
  };
  /** Characters stored per source, and how many of them were returned or skipped. */
  readonly #stored: Record<OutputSource, number> = { stdout: 0, stderr: 0 };
  readonly #consumed: Record<OutputSource, number> = { stdout: 0, stderr: 0 };

  constructor(store: RecordStore, processId: number) {
    this.#store = store;
    this.#processId = processId;
  }

  /** Counts `chars` characters of output just stored for `source`. */
  appended(source: OutputSource, chars: number): void {
    this.#stored[source] += chars;
  }

  /** Back to the start (the records were deleted). */
  reset(): void {
    for (const source of ["stdout", "stderr"] as const) {
      this.#positions[source] = { seq: 0, offset: 0 };
      this.#stored[source] = this.#consumed[source] = 0;
    }
  }

  /** Characters of `sources` not yet returned. */
  unread(sources: OutputSource[]): number {
    return sources.reduce((sum, s) => sum + this.#stored[s] - this.#consumed[s], 0);
  }

  /**
   * The next records, oldest first, at most `maxChars` of content (a longer
   * record is cut); the cursor moves past what is returned.
   */
  page(sources: OutputSource[], maxChars: number): Page {
    const skip = Math.max(...sources.map((s) => this.#positions[s].offset));
    const { records, complete } = this.#store.query(this.#processId, {
      sources,
      afterSeq: this.#after(sources),
      maxChars: maxChars + skip,
    });
    const page: IoRecord[] = [];
    let chars = 0;
    let bytes = 0;
    let cut: { source: OutputSource; seq: number; offset: number } | null = null;
    for (const record of records) {
      const source = record.source as OutputSource;
      const position = this.#positions[source];
      const offset = record.seq === position.seq ? position.offset : 0;
      const content = record.content.slice(offset);
      const cost = jsonBytes(content) + RECORD_OVERHEAD_BYTES;
      const roomChars = maxChars - chars;
      const roomBytes = REPLY_OUTPUT_BYTES - bytes;
      if (content.length > roomChars || cost > roomBytes) {
        const fit = Math.min(roomChars, Math.floor(content.length * roomBytes / cost));
        const take = cutPoint(content, page.length === 0 ? Math.max(1, fit) : fit);
        if (take > 0) {
          page.push({ ...record, content: content.slice(0, take) });
          cut = { source, seq: record.seq, offset: offset + take };
        }
        break;
      }
      page.push({ ...record, content });
      chars += content.length;
      bytes += cost;
    }
    const last = page.at(-1);
    if (last !== undefined) {
      for (const source of sources) this.#positions[source] = { seq: last.seq, offset: 0 };
      if (cut !== null) this.#positions[cut.source] = { seq: cut.seq, offset: cut.offset };
      for (const record of page) {
        this.#consumed[record.source as OutputSource] += record.content.length;
      }
    }
    return { records: page, complete: complete && cut === null && page.length === records.length };
  }

  /**
   * Everything unread as one text, at most `maxChars` long: past that, its
   * head and tail around a marker. The cursor moves to the end.
   */
  text(sources: OutputSource[], maxChars: number): Text {
    const unread = this.unread(sources);
    if (unread === 0) return { text: "", omitted: 0 };
    const headChars = unread <= maxChars
      ? maxChars
      : maxChars < MIN_HEAD_AND_TAIL
      ? 0
      : Math.floor((maxChars - MARKER_ROOM) / 2);
    const head = headChars === 0 ? "" : join(this.page(sources, headChars).records);
    const remaining = this.unread(sources);
    if (remaining === 0) return { text: head, omitted: 0 };
    const room = maxChars < MIN_HEAD_AND_TAIL ? maxChars : maxChars - MARKER_ROOM - head.length;
    const budget = REPLY_OUTPUT_BYTES - jsonBytes(head) - MARKER_ROOM;
    const { text: tail, lastSeq } = this.#tail(sources, Math.max(0, room), budget);
    this.#moveTo(sources, lastSeq);
    const omitted = remaining - tail.length;
    if (maxChars < MIN_HEAD_AND_TAIL) return { text: tail, omitted };
    const marker = `\n[… ${omitted} characters omitted; process_read has them …]\n`;
    return { text: head + marker + tail, omitted };
  }

  /** Moves the cursor past everything stored (what a rendered screen stood for). */
  skip(sources: OutputSource[]): void {
    if (this.unread(sources) === 0) return;
    const { lastSeq } = this.#tail(sources, 1, REPLY_OUTPUT_BYTES);
    this.#moveTo(sources, lastSeq);
  }

  /** The last `chars` characters of unread output, without moving the cursor. */
  peek(sources: OutputSource[], chars: number): string {
    return this.#tail(sources, chars, REPLY_OUTPUT_BYTES).text;
  }

  #moveTo(sources: OutputSource[], seq: number): void {
    for (const source of sources) {
      this.#positions[source] = { seq, offset: 0 };
      this.#consumed[source] = this.#stored[source];
    }
  }

  #after(sources: OutputSource[]): Partial<Record<OutputSource, number>> {
    const after: Partial<Record<OutputSource, number>> = {};
    for (const s of sources) {
      const { seq, offset } = this.#positions[s];
      after[s] = offset > 0 ? seq - 1 : seq;
    }
    return after;
  }

  /** The last `chars` unread characters within `bytes` of JSON, and the newest record's seq. */
  #tail(sources: OutputSource[], chars: number, bytes: number): { text: string; lastSeq: number } {
    const { records } = this.#store.query(this.#processId, {
      sources,
      afterSeq: this.#after(sources),
      maxChars: Math.max(1, chars),
      newest: true,
    });
    const lastSeq = records.at(-1)?.seq ?? 0;
    const first = records[0];
    if (first !== undefined) {
      const position = this.#positions[first.source as OutputSource];
      if (first.seq === position.seq) first.content = first.content.slice(position.offset);
    }
    return { text: fitEnd(join(records), chars, bytes), lastSeq };
  }
}

/**
 * Records of the time window `q` selects, newest kept when `maxChars` or the
 * byte budget is reached (the oldest record kept may be cut at its start).
 */
export function newestPage(
  store: RecordStore,
  processId: number,
  q: { sources: IoRecord["source"][]; sinceTimestamp: number; maxChars: number },
): Page {
  const { records, complete } = store.query(processId, { ...q, newest: true });
  let chars = 0;
  let bytes = 0;
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i];
    const cost = jsonBytes(record.content) + RECORD_OVERHEAD_BYTES;
    if (chars + record.content.length <= q.maxChars && bytes + cost <= REPLY_OUTPUT_BYTES) {
      chars += record.content.length;
      bytes += cost;
      continue;
    }
    const content = fitEnd(record.content, q.maxChars - chars, REPLY_OUTPUT_BYTES - bytes);
    const kept = content === "" ? records.slice(i + 1) : records.slice(i);
    if (content !== "") kept[0] = { ...record, content };
    return { records: kept.length > 0 ? kept : [{ ...record, content }], complete: false };
  }
  return { records, complete };
}

function join(records: IoRecord[]): string {
  return records.map((r) => r.content).join("");
}

/** Where to cut `text` to keep at most `n` characters, never between a surrogate pair. */
function cutPoint(text: string, n: number): number {
  if (n >= text.length) return text.length;
  const code = text.charCodeAt(n - 1);
  return n > 1 && code >= 0xd800 && code <= 0xdbff ? n - 1 : Math.max(0, n);
}

/** The end of `text`: at most `chars` characters and `bytes` bytes of JSON. */
function fitEnd(text: string, chars: number, bytes: number): string {
  let keep = Math.min(text.length, chars);
  for (;;) {
    let start = text.length - keep;
    const code = text.charCodeAt(start);
    if (start > 0 && code >= 0xdc00 && code <= 0xdfff) start++;
    const end = text.slice(start);
    const size = jsonBytes(end);
    if (size <= bytes || end === "") return end;
    keep = Math.floor(end.length * bytes / size * 0.95);
  }
}
