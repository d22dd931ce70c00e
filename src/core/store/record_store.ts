/**
 * The SQLite file that holds every process's I/O records and metadata.
 *
 * - **Raw bytes**, as written (NULs, invalid UTF-8 kept); text is made at read
 *   time ({@link RecordDecoder}), so ingest does no decoding.
 * - **Constant-time reads.** Keys are `process_id · 2³² + seq`: a process is one
 *   range, and a query starts at a cursor or the newest, never the first record.
 * - **Packed.** A commit writes each process's run of small records as one
 *   row ({@link packFrames}), so a chatty program costs a row per commit.
 * - **Batched.** Appends wait in memory and are committed together every
 *   {@link COMMIT_INTERVAL_MS} or once {@link COMMIT_BYTES} are waiting;
 *   queries see them without committing. So a flood costs one transaction per
 *   MiB, a chatty program one per interval, and a read never writes.
 * - **Capped.** Past `maxOutputBytes` per process, the oldest records are
 *   dropped at commit time and the owner is told which ({@link Retention}).
 *
 * Durability: a rollback journal and `synchronous = OFF`. A SIGKILLed server
 * leaves a file that opens cleanly (the hot journal rolls back a half-written
 * commit) and holds everything committed, i.e. all output older than
 * {@link COMMIT_INTERVAL_MS}, and the row of every process it started (written
 * before its start returns). A power cut may lose more; the file belongs to
 * one server run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RecordStore } from "./record_store.ts";
 *
 * const store = new RecordStore(":memory:");
 * const bytes = (s: string) => new TextEncoder().encode(s);
 * store.append(1, { seq: 1, timestamp: 10, source: "stdout", bytes: bytes("\x1b[1mhi\r\n") });
 * store.append(1, { seq: 2, timestamp: 20, source: "stdin", bytes: bytes("x\n") });
 * const { records } = store.query(1, { sources: ["stdout"], dropCR: true });
 * assert.deepEqual(records.map((r) => r.content), ["hi\n"]);
 * store.close();
 * ```
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { PortalError } from "../../errors.ts";
import { MAX_OUTPUT_BYTES, readVar } from "../../env_vars.ts";
import { RecordDecoder } from "./record_decoder.ts";
import { type QueryResult, type RawRecord, type RecordQuery, SOURCE_CODE } from "./records.ts";
import { packFrames } from "./frames/packing.ts";
import { Retention, type RetentionHooks } from "./retention.ts";
import { type RecordStats, StoredFrames } from "./frames/stored_frames.ts";
import {
  markFile,
  PRAGMAS,
  prepareStatements,
  type RecordStatements,
  SCHEMA,
  SEQ_SPAN,
  TRUNCATE_JOURNAL,
} from "./tables.ts";
import { PendingRecords } from "./pending_records.ts";
import { ProcessesTable, type ProcessRow, type TerminalSize } from "./processes_table.ts";
import type { Source } from "../model/schema.ts";
import { HELD_BYTES, RETRY_MS, WriteFailure } from "./write_failure.ts";

/**
 * Buffered records are committed this often: the bound on what a SIGKILLed
 * server loses. Longer means fewer page writes for a chatty program.
 */
export const COMMIT_INTERVAL_MS = 200;
/**
 * ...or as soon as this many bytes wait (a flood commits in batches of this
 * size). A commit is a task other calls wait behind (~1 ms per MiB); SQLite's
 * cost is per page, not per commit, so small batches cost nothing more.
 */
export const COMMIT_BYTES = 1 << 20;

/** Process ids whose keys stay exact in a double. */
const MAX_PROCESS_ID = 2 ** 21 - 1;

/** Options of a {@link RecordStore}. */
export interface StoreOptions {
  /** The per-process cap on stored records, 0 for none (default: {@link maxOutputBytes}). */
  maxOutputBytes?: number;
  /** Told when writing the file starts failing (with the message) and works again (null). */
  onWritesChange?: (message: string | null) => void;
}

/** The records table and the processes table in one SQLite file. */
export class RecordStore {
  /** Whether the file can be written now (see write_failure.ts). */
  readonly #writes: WriteFailure;
  readonly #db: DatabaseSync;
  readonly #processes: ProcessesTable;
  readonly #maxBytes: number;
  readonly #commitBytes: number;
  readonly #pending = new PendingRecords();
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #retention: Retention;
  readonly #sql: RecordStatements;
  readonly #frames: StoredFrames;

  /**
   * Opens (creating) the database at `path`; `":memory:"` works for tests.
   * The cap defaults to `PORTAL_MAX_OUTPUT_BYTES` ({@link MAX_OUTPUT_BYTES}).
   */
  constructor(path: string, options: StoreOptions = {}) {
    this.#maxBytes = options.maxOutputBytes ?? readVar(MAX_OUTPUT_BYTES);
    this.#retention = new Retention(this.#maxBytes);
    // A small cap commits (and so trims) in smaller batches.
    this.#commitBytes = this.#maxBytes > 0
      ? Math.min(COMMIT_BYTES, Math.ceil(this.#maxBytes / 4))
      : COMMIT_BYTES;
    this.#db = new DatabaseSync(path);
    this.#db.exec(PRAGMAS);
    markFile(this.#db);
    this.#db.exec(SCHEMA);
    this.#processes = new ProcessesTable(this.#db);
    this.#writes = new WriteFailure(path);
    this.#writes.onChange = options.onWritesChange;
    this.#sql = prepareStatements(this.#db);
    this.#frames = new StoredFrames(this.#sql);
  }

  /** The per-process cap on stored bytes; 0: none. */
  get maxOutputBytes(): number {
    return this.#maxBytes;
  }

  /**
   * Throws while the file cannot be written (a full disk): what would be
   * recorded now (a start, input) could not be, so the call is refused.
   */
  checkWritable(): void {
    const failure = this.#writes.message;
    if (failure) throw new PortalError(failure, "storage");
  }

  /** Registers what retention tells the owner of `processId`, and what it must keep. */
  track(processId: number, hooks: RetentionHooks): void {
    this.#retention.track(processId, hooks);
  }

  /**
   * Buffers one record: the one way bytes enter the store. It is committed
   * within {@link COMMIT_INTERVAL_MS}, or at once under load; queries see it now.
   */
  append(processId: number, record: RawRecord): void {
    if (!Number.isInteger(processId) || processId < 1 || processId > MAX_PROCESS_ID) {
      throw new RangeError(`process id ${processId} is outside 1..${MAX_PROCESS_ID}`);
    }
    if (record.seq >= SEQ_SPAN) throw new RangeError(`record ${record.seq} is past 2^32`);
    this.#pending.push({ processId, key: processId * SEQ_SPAN + record.seq, record });
    this.#retention.added(processId, record.bytes.length);
    if (this.#writes.failing) this.#hold();
    else if (this.#pending.bytes >= this.#commitBytes) this.flush();
    else this.#commitSoon(COMMIT_INTERVAL_MS);
  }

  #commitSoon(ms: number): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => this.flush(), ms);
    Deno.unrefTimer(this.#timer);
  }

  /**
   * Commits every buffered record and process row, and drops what is past the cap; if the
   * file cannot be written, they wait (see write_failure.ts).
   */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.empty && !this.#processes.waiting) {
      return this.#writes.succeeded(); // Nothing waits to be written.
    }
    if (!this.#writeRows()) return this.#hold();
    const deletes = this.#retention.trim(this.#sql);
    // Each process's records in order, so that its runs of small records pack into frames.
    const byProcess = Map.groupBy(this.#pending.take(), (p) => p.processId);
    const frames = [...byProcess.values()].flatMap((records) => packFrames(records));
    try {
      transaction(this.#db, () => {
        for (const f of frames) {
          this.#sql.insert.run(f.key, f.timestamp, f.source, f.content, f.count, f.layout);
        }
        for (const [from, to] of deletes) this.#sql.deleteRange.run(from, to);
      });
    } catch (error) {
      this.#writes.failed(error);
      this.#pending.restore();
      return this.#hold();
    }
    this.#pending.confirm();
    this.#retention.deleted(deletes);
    this.#writes.succeeded();
  }

  /** Writes the process rows that wait, on this connection; false when the file cannot be written. */
  #writeRows(): boolean {
    try {
      if (this.#processes.waiting) transaction(this.#db, () => this.#processes.write());
    } catch (error) {
      this.#writes.failed(error);
      return false;
    }
    this.#processes.written();
    return true;
  }

  /** While writes fail: the oldest waiting records past {@link HELD_BYTES} go; retries later. */
  #hold(): void {
    this.#pending.trimTo(
      HELD_BYTES,
      ({ processId, record }) => this.#retention.droppedWaiting(processId, record),
    );
    this.#commitSoon(RETRY_MS);
  }

  /**
   * Records of one process in order, as text. With `maxChars`, stops once that
   * much content was collected (always returning at least one record); with
   * `newest`, that budget goes to the newest records instead of the oldest.
   * Costs what it returns, wherever in the process's history it starts.
   */
  query(processId: number, q: RecordQuery): QueryResult {
    const after = (s: Source) =>
      q.sources.includes(s) ? Math.max(0, q.afterSeq?.[s] ?? 0) : SEQ_SPAN;
    const base = processId * SEQ_SPAN;
    const bounds = [base + after("stdin"), base + after("stdout"), base + after("stderr")];
    let low = Math.min(...bounds);
    if (q.sinceTimestamp !== undefined && !q.newest) {
      low = Math.max(low, this.#frames.lastKeyBefore(base, q.sinceTimestamp));
    }
    const scan = this.#scan(processId, low, bounds, q.newest ?? false);
    const text = new RecordDecoder(
      q.dropCR ?? false,
      (source, seq) => this.#before(processId, source, seq),
      q.encoding,
    );
    return q.newest ? text.newest(scan, q) : text.oldest(scan, q);
  }

  /** Raw stdout records after `afterSeq`, oldest first, until `maxBytes` are collected. */
  raw(processId: number, afterSeq: number, maxBytes: number): RawRecord[] {
    const base = processId * SEQ_SPAN;
    const bounds = [SEQ_SPAN, SEQ_SPAN, SEQ_SPAN].map((b) => base + b);
    bounds[SOURCE_CODE.stdout] = base + afterSeq;
    const out: RawRecord[] = [];
    let bytes = 0;
    for (const record of this.#scan(processId, base + afterSeq, bounds, false)) {
      out.push(record);
      bytes += record.bytes.length;
      if (bytes >= maxBytes) break;
    }
    return out;
  }

  /** Every record of a process, oldest first (committed, then buffered): a recording's events. */
  records(processId: number): Iterable<RawRecord> {
    const base = processId * SEQ_SPAN;
    return this.#scan(processId, base, [base, base, base], false);
  }

  /**
   * Every record of a process, oldest first, as runs (StoredFrames.runs: a
   * frame's records joined, cut where timestamps reach `since`), then the
   * buffered ones: for a long read that wants bytes in order, not records.
   */
  *runs(processId: number, since = -Infinity): Generator<RawRecord> {
    const base = processId * SEQ_SPAN;
    const low = Math.max(base, this.#retention.droppedThrough(processId));
    const pending = this.#pending.filter((p) => p.processId === processId && p.key > low);
    // The file's rows from the first record in memory on are copies of those records.
    const high = this.#pending.firstKey(processId) ?? base + SEQ_SPAN;
    // Through a memory map while it lasts: SQLite reads 200 MB of frames with ~40% less CPU
    // than with a read() per page; unmapped after, so the host's memory does not keep it.
    this.#db.exec("PRAGMA mmap_size = 2147418112");
    try {
      if (low < high - 1) yield* this.#frames.runs(base, low, since, high);
    } finally {
      this.#db.exec("PRAGMA mmap_size = 0");
    }
    yield* pending;
  }

  /** Notes a PTY's size from `size.timestamp` on (written with the next commit). */
  saveSize(processId: number, size: TerminalSize): void {
    this.#processes.saveSize(processId, size);
    if (!this.#writes.failing) this.#commitSoon(COMMIT_INTERVAL_MS);
  }

  /** A PTY's sizes, oldest first: at its start, then after each resize. */
  sizes(processId: number): TerminalSize[] {
    return this.#processes.sizes(processId);
  }

  /** Deletes the records of a process (the process row stays). */
  deleteRecords(processId: number): void {
    const base = processId * SEQ_SPAN;
    // The journal of the delete and of the vacuum holds the deleted pages: emptied after each.
    this.#db.exec(TRUNCATE_JOURNAL.on);
    try {
      this.#writes.attempt(() => this.#sql.deleteRange.run(base, base + SEQ_SPAN - 1));
      this.#pending.forget(processId);
      this.#retention.emptied(processId);
      // Stepped to the end: exec() would free a single page.
      this.#writes.attempt(() => this.#db.prepare("PRAGMA incremental_vacuum").all());
    } finally {
      this.#db.exec(TRUNCATE_JOURNAL.off);
    }
  }

  /** The highest process id the file has seen (0 when new): a reopened file's ids go on from there. */
  highestProcessId(): number {
    return this.#processes.highestId();
  }

  /**
   * Writes or replaces a process row, with the next commit; with `now`, at
   * once (a new process: its id, once handed out, must outlive a crash of
   * this server, or the next one would hand it out again). A row that cannot
   * be written now waits, as records do.
   */
  saveProcess(row: ProcessRow, options: { now?: boolean } = {}): void {
    this.#processes.save(row);
    if (this.#writes.failing) return;
    if (!options.now) return this.#commitSoon(COMMIT_INTERVAL_MS);
    if (!this.#writeRows()) this.#hold();
  }

  /** What an earlier host left in the file for the next (see ProcessesTable.restorable). */
  restorableProcesses(remote = false): ProcessRow[] {
    return this.#processes.restorable(remote);
  }

  /** Deletes every process (row and records) that ended more than `ms` ago; returns how many. */
  removeEndedBefore(ms: number): number {
    const ids = this.#processes.endedBefore(new Date(Date.now() - ms).toISOString());
    for (const id of ids) this.deleteProcess(id);
    return ids.length;
  }

  /** What the file holds of process `id`'s records (see StoredFrames.stats). */
  recordStats(id: number): RecordStats {
    return this.#frames.stats(id * SEQ_SPAN);
  }

  /** Deletes a process row and all its records. */
  deleteProcess(processId: number): void {
    this.deleteRecords(processId);
    this.#retention.forget(processId);
    this.#processes.delete(processId);
  }

  /** Commits what is buffered and closes the file. */
  close(): void {
    this.flush();
    clearTimeout(this.#timer); // A retry after a failed commit: too late now.
    this.#db.close();
  }

  /** Records of a process in key order (committed, then buffered), within `bounds` per source. */
  *#scan(processId: number, low: number, bounds: number[], desc: boolean): Generator<RawRecord> {
    const base = processId * SEQ_SPAN;
    low = Math.max(low, this.#retention.droppedThrough(processId));
    const pending = this.#pending.filter((p) =>
      p.processId === processId && p.key > low && p.key > bounds[SOURCE_CODE[p.record.source]]
    );
    // The file's rows from the first record in memory on are copies of those records.
    const high = this.#pending.firstKey(processId) ?? base + SEQ_SPAN;
    if (desc) yield* pending.reverse();
    // No key lies between `low` and the first record in memory: the file is not asked (a
    // step's reads find all they want in memory).
    if (low < high - 1) yield* this.#frames.records(base, low, bounds, desc, high);
    if (!desc) yield* pending;
  }

  /** The record of `source` just before `seq`, looked for among the few records before it. */
  #before(processId: number, source: Source, seq: number): RawRecord | undefined {
    const base = processId * SEQ_SPAN;
    const waiting = this.#pending.findLast((p) =>
      p.processId === processId && p.key < base + seq && p.record.source === source
    );
    const stored = waiting ?? this.#frames.before(base, source, seq);
    return stored && base + stored.seq > this.#retention.droppedThrough(processId)
      ? stored
      : undefined;
  }
}

/** Runs `work` in one transaction; rolls back (if SQLite has not already) when it throws. */
function transaction(db: DatabaseSync, work: () => void): void {
  db.exec("BEGIN");
  try {
    work();
    db.exec("COMMIT");
  } catch (error) {
    // SQLite may have rolled back already (a full disk does).
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}
