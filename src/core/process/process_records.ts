/**
 * One process's records, as its owner and the read tools see them: bytes go
 * in exactly as they came (but for secrets), stamped with a sequence number
 * and a timestamp; text comes out through the `process_read_new` cursor or a
 * time window; and what the store's size cap dropped is counted so every
 * read can say so.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ProcessRecords } from "./process_records.ts";
 * import { RecordStore } from "../store/record_store.ts";
 * import { Secrets } from "../input/secrets.ts";
 *
 * const store = new RecordStore(":memory:");
 * const records = new ProcessRecords(store, 1, { dropCR: true, secrets: new Secrets() });
 * records.append("stdout", new TextEncoder().encode("\x1b[1m>>> \r\n"));
 * const page = records.readNew({ sources: ["stdout"], maxChars: 100 });
 * assert.deepEqual(page.records.map((r) => r.content), [">>> \n"]);
 * assert.equal(records.lastLine, "");
 * // The last line grows by what came since it was last asked for, an escape split in two too.
 * records.append("stdout", new TextEncoder().encode("42\r\n\x1b[1"));
 * assert.equal(records.lastLine, "");
 * records.append("stdout", new TextEncoder().encode("m>>"));
 * records.append("stdout", new TextEncoder().encode("> "));
 * assert.equal(records.lastLine, ">>> ");
 * store.close();
 * ```
 * @module
 */
import type { OutputSource } from "../../terminal/terminal.ts";
import { OutputDecoder } from "../text/decoder.ts";
import { newestPage } from "../output/newest_page.ts";
import { ReadCursor } from "../output/read_cursor.ts";
import { drawnText, redraws } from "../output/drawn_text.ts";
import type { RecordStore } from "../store/record_store.ts";
import type { IoRecord, RawRecord } from "../store/records.ts";
import type { TerminalSize } from "../store/processes_table.ts";
import type { RecordStats } from "../store/frames/stored_frames.ts";
import type { Encoding, Source } from "../model/schema.ts";
import type { Secrets } from "../input/secrets.ts";

/** The output kept for prompt matching: the end of the last line. */
const LAST_LINE_CHARS = 1024;
/** Unread terminal output laid out as drawn (drawn_text.ts) up to this size; past it, as is. */
const DRAWN_MAX_BYTES = 256 * 1024;

/** Hears each output record as it is stored. */
type OnOutput = (source: OutputSource, bytes: Uint8Array, seq: number) => void;

/** Records as a read returns them, before the process adds its id and status. */
export interface StoredPage {
  records: IoRecord[];
  complete: boolean;
  /** Bytes the store's cap dropped that this read would have covered. */
  dropped: number;
}

/** The records of one process. */
export class ProcessRecords {
  readonly #store: RecordStore;
  readonly #id: number;
  readonly #dropCR: boolean;
  readonly #cursor: ReadCursor;
  readonly #onOutput: OnOutput | undefined;
  /** What is kept out of the records (see secrets.ts): its owner's. */
  readonly #secrets: Secrets;
  /** Records per source since the last clear. */
  readonly counts: Record<Source, number> = { stdin: 0, stdout: 0, stderr: 0 };
  /** `performance.now()` of the last output. */
  lastOutputAt = -Infinity;
  #seq = 0;
  #lastTimestamp = -1;
  readonly #startPerf = performance.now();
  #endNs: number | undefined;
  /** The newest output seq, and the last line as of it (computed when asked). */
  #outputSeq = 0;
  #lastLine = { seq: 0, text: "" };
  /** The end of the last line a read returned: where the next unread output is drawn. */
  #shownLine = "";
  /** Bytes dropped by the store's cap per source, and the newest dropped record's timestamp. */
  readonly #dropped: Record<Source, number> = { stdin: 0, stdout: 0, stderr: 0 };
  #droppedUntil = -1;
  /** Of those, bytes `readNew` had not returned yet: reported once, by the next read. */
  readonly #unread: Record<OutputSource, number> = { stdout: 0, stderr: 0 };

  /**
   * `dropCR`: the output comes through a terminal, whose line ends are
   * `\r\n`; `secrets`: what to keep out of the records; `onOutput` hears
   * each output record as stored (the screen, the listeners).
   * `ended`: the records of a program that ended under an earlier host, as
   * the file holds them: these records go on from there, ended.
   */
  constructor(
    store: RecordStore,
    id: number,
    options: {
      dropCR: boolean;
      secrets: Secrets;
      onOutput?: OnOutput;
      ended?: RecordStats;
    },
  ) {
    this.#store = store;
    this.#id = id;
    this.#dropCR = options.dropCR;
    this.#secrets = options.secrets;
    this.#onOutput = options.onOutput;
    this.#cursor = new ReadCursor(store, id, options);
    if (options.ended) {
      Object.assign(this.counts, options.ended.counts);
      this.#seq = this.#outputSeq = options.ended.lastSeq;
      this.#endNs = options.ended.lastNs;
    }
  }

  /** The newest record's seq (0 before the first). */
  get seq(): number {
    return this.#seq;
  }

  /** Nanoseconds since the process started; once {@link end}ed, its age at the end. */
  elapsedNs(): number {
    return this.#endNs ?? Math.round((performance.now() - this.#startPerf) * 1e6);
  }

  /**
   * The one way bytes enter the records, exactly as they came but for the
   * process's secrets: replaced, and at the end of an output chunk the
   * start of one held back until the next chunk or a read.
   */
  append(source: Source, bytes: Uint8Array): void {
    if (source === "stdin") {
      this.#record(source, this.#secrets.scrub(bytes));
      return;
    }
    this.lastOutputAt = performance.now();
    const stored = this.#secrets.redact(source, bytes);
    if (stored.length > 0) this.#record(source, stored);
  }

  /** The last `maxChars` of output as text (a pipe process's picture for a watcher). */
  tailText(maxChars: number): string {
    this.#release();
    const { records } = this.#store.query(this.#id, {
      sources: ["stdout", "stderr"],
      maxChars,
      newest: true,
    });
    return records.map((r) => r.content).join("").slice(-maxChars);
  }

  /** Notes the terminal's size from now on (its start, a resize), for recordings. */
  resized(cols: number, rows: number): void {
    this.#store.saveSize(this.#id, { timestamp: this.elapsedNs(), cols, rows });
  }

  /** Every record and the terminal's sizes, oldest first: what a recording is made of. */
  recording(): { records: Iterable<RawRecord>; sizes: TerminalSize[] } {
    this.#release();
    return { records: this.#store.records(this.#id), sizes: this.#store.sizes(this.#id) };
  }

  /** Throws while the store cannot write (a full disk): input sent now could not be recorded. */
  checkWritable(): void {
    this.#store.checkWritable();
  }

  /** The program ended: its age stops, and everything is committed (written, once this returns). */
  end(): void {
    this.#release();
    this.#store.flush();
    this.#endNs = this.#nextTimestamp();
  }

  /** The output after its last newline (stdout and stderr), for prompts. */
  get lastLine(): string {
    if (this.#lastLine.seq !== this.#outputSeq) {
      // Only the output since the last look is read: waits with a prompt look at every check.
      const after = this.#lastLine.seq;
      const { records } = this.#store.query(this.#id, {
        sources: ["stdout", "stderr"],
        afterSeq: { stdout: after, stderr: after },
        maxChars: LAST_LINE_CHARS,
        newest: true,
        dropCR: this.#dropCR,
      });
      const added = records.map((r) => r.content).join("");
      const text = (added.includes("\n") ? added : this.#lastLine.text + added)
        .slice(-LAST_LINE_CHARS);
      this.#lastLine = { seq: this.#outputSeq, text: text.slice(text.lastIndexOf("\n") + 1) };
    }
    // What the secret filter holds back counts too, without being released: waits look at
    // the last line often (macOS, relays), and a release would let a split secret's start out.
    return this.#lastLine.text + this.#heldText();
  }

  /**
   * Records not returned by an earlier `readNew` (or waiting call) for these
   * sources, oldest first, at most `maxChars` of content (a longer record is
   * cut, the rest comes next time); the cursors move past what is returned.
   */
  readNew(options: { sources: OutputSource[]; maxChars: number }): StoredPage {
    this.#release();
    const { records, complete } = this.#cursor.page(options.sources, options.maxChars);
    this.#shown(records.map((r) => r.content).join(""));
    return { records, complete, dropped: this.#takeUnreadDrops(options.sources) };
  }

  /** Unread output as one text (head and tail past `maxChars`); the cursors move to the end. */
  readText(
    sources: OutputSource[],
    maxChars: number,
    terminal?: { cols: number },
  ): { text: string; omitted: number; dropped: number } {
    this.#release();
    const dropped = this.#takeUnreadDrops(sources);
    const from = this.#cursor.placeOf("stdout");
    const read = this.#cursor.text(sources, maxChars, this.#seq);
    if (terminal && read.omitted === 0 && from.offset === 0) {
      read.text = this.#drawn(from.seq, terminal.cols, maxChars) ?? read.text;
    }
    this.#shown(read.text);
    return { ...read, dropped };
  }

  /**
   * The terminal output after record `afterSeq` as drawn (drawn_text.ts),
   * or null when it draws nothing over itself, is too long, or no longer
   * all stored.
   */
  #drawn(afterSeq: number, cols: number, maxChars: number): string | null {
    const records = this.#store.raw(this.#id, afterSeq, DRAWN_MAX_BYTES + 1);
    const bytes = records.reduce((n, r) => n + r.bytes.length, 0);
    if (bytes > DRAWN_MAX_BYTES || (records.at(-1)?.seq ?? afterSeq) < this.#outputSeq) return null;
    const decoder = new TextDecoder();
    const raw = records.map((r) => decoder.decode(r.bytes, { stream: true })).join("");
    if (!redraws(raw)) return null;
    const text = drawnText(this.#shownLine, raw, cols);
    return text.length <= maxChars ? text : null;
  }

  /** A read returned `text`: the line it ends with is where the next output goes on. */
  #shown(text: string): void {
    const end = text.lastIndexOf("\n");
    this.#shownLine = (end < 0 ? this.#shownLine + text : text.slice(end + 1)).slice(
      -LAST_LINE_CHARS,
    );
  }

  /** Marks all output so far as read (it was shown as a rendered screen instead). */
  skipUnread(sources: OutputSource[]): void {
    this.#release();
    this.#takeUnreadDrops(sources);
    this.#cursor.skip(sources, this.#seq);
    // A screen was shown: where its program's next line goes is not known from the stream.
    this.#shownLine = "";
  }

  /**
   * Marks the unread terminal output up to a point of output record `seq` as
   * read: `rest` is what followed that point in the record's bytes.
   */
  skipUnreadTo(seq: number, rest: Uint8Array): void {
    const text = new OutputDecoder({ dropCR: this.#dropCR }).decode(rest);
    this.#cursor.skipInto("stdout", seq, text);
    this.#shownLine = "";
  }

  /** The last `chars` characters of unread output; the cursors stay. */
  peekUnread(sources: OutputSource[], chars: number): string {
    this.#release();
    return this.#cursor.peek(sources, chars);
  }

  /** Records from the last `windowNs` of the process's life; the newest win `maxChars`. */
  read(
    options: { sources: Source[]; maxChars: number; windowNs: number; encoding?: Encoding },
  ): StoredPage {
    this.#release();
    const since = Math.max(0, this.elapsedNs() - options.windowNs);
    const { records, complete } = newestPage(this.#store, this.#id, {
      sources: options.sources,
      sinceTimestamp: since,
      maxChars: options.maxChars,
      dropCR: this.#dropCR,
      encoding: options.encoding,
    });
    // The window reaches back past the oldest record kept: say how much is gone before it.
    const dropped = since <= this.#droppedUntil
      ? options.sources.reduce((sum, source) => sum + this.#dropped[source], 0)
      : 0;
    return { records, complete, dropped };
  }

  /**
   * Every stored record of `sources`, oldest first, as runs (a frame's
   * records joined, cut where timestamps reach `since`: RecordStore.runs),
   * whether CRs are dropped from their text, and the bytes of theirs the cap
   * dropped before them.
   */
  stored(
    sources: Source[],
    since = -Infinity,
  ): { records: Iterable<RawRecord>; dropCR: boolean; dropped: number } {
    this.#release();
    return {
      records: this.#store.runs(this.#id, since).filter((r) => sources.includes(r.source)),
      dropCR: this.#dropCR,
      dropped: sources.reduce((sum, source) => sum + this.#dropped[source], 0),
    };
  }

  /**
   * A record the store's cap dropped (oldest first). Unread, it is counted
   * for the next `readNew`; if that read had had part of it, the rest is.
   */
  dropped(record: Omit<RawRecord, "bytes">, bytes: number): void {
    this.#dropped[record.source] += bytes;
    this.#droppedUntil = record.timestamp;
    const { source, seq } = record;
    if (source === "stdin") return;
    this.#unread[source] += seq > this.#cursor.placeOf(source).seq
      ? bytes
      : this.#cursor.droppedInside(source, seq);
  }

  /** Deletes every record and starts the cursors over; returns how many records went. */
  clear(): number {
    const counts = this.counts;
    this.#release();
    const removed = counts.stdin + counts.stdout + counts.stderr;
    this.#store.deleteRecords(this.#id);
    counts.stdin = counts.stdout = counts.stderr = 0;
    this.#cursor.reset();
    this.#shownLine = "";
    this.#dropped.stdin = this.#dropped.stdout = this.#dropped.stderr = 0;
    this.#unread.stdout = this.#unread.stderr = 0;
    this.#droppedUntil = -1;
    return removed;
  }

  /** Stores a record (output: tells `onOutput`). */
  #record(source: Source, bytes: Uint8Array): void {
    const record: RawRecord = { seq: ++this.#seq, timestamp: this.#nextTimestamp(), source, bytes };
    this.counts[source]++;
    this.#store.append(this.#id, record);
    if (source === "stdin") return;
    this.#outputSeq = record.seq;
    this.#onOutput?.(source, bytes, record.seq);
  }

  /** What the secret filter holds back, as text (the start of a secret: no line end). */
  #heldText(): string {
    const held = [this.#secrets.held("stdout"), this.#secrets.held("stderr")];
    return held.map((bytes) => bytes.length === 0 ? "" : new TextDecoder().decode(bytes)).join("");
  }

  /** Stores what the secret filter holds back: every read sees all output so far. */
  #release(): void {
    for (const source of ["stdout", "stderr"] as const) {
      const held = this.#secrets.release(source);
      if (held.length > 0) this.#record(source, held);
    }
  }

  /** The timestamp of a new record: {@link elapsedNs}, made strictly increasing. */
  #nextTimestamp(): number {
    this.#lastTimestamp = Math.max(this.elapsedNs(), this.#lastTimestamp + 1);
    return this.#lastTimestamp;
  }

  /** Unread bytes of `sources` the cap dropped since the last read: reported once. */
  #takeUnreadDrops(sources: OutputSource[]): number {
    let dropped = 0;
    for (const source of sources) {
      dropped += this.#unread[source];
      this.#unread[source] = 0;
    }
    return dropped;
  }
}
