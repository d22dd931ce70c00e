/**
 * The SQLite file that holds every process's I/O records and metadata.
 *
 * - **Raw bytes**, as written (NULs, invalid UTF-8 kept); text is made at read
 *   time ({@link RecordText}), so ingest does no decoding.
 * - **Constant-time reads.** Keys are `process_id · 2³² + seq`: a process is one
 *   range, and a query starts at a cursor or the newest, never the first record.
 * - **Packed.** A commit writes each process's run of small records as one
 *   row ({@link packFrames}), so a chatty program costs a row per commit.
 * - **Batched.** Appends wait in memory and are committed together every
 *   {@link COMMIT_INTERVAL_MS} or once {@link COMMIT_BYTES} are waiting;
 *   queries see them without committing. So a flood costs one transaction per
 *   MiB, a chatty program one per interval, and a read never writes.
 * - **Capped.** Past `maxOutputBytes` per process, the oldest records are
 *   dropped at commit time and the owner is told which ({@link RetentionHooks}).
 *
 * Durability: a rollback journal and `synchronous = OFF`. A SIGKILLed server
 * leaves a file that opens cleanly (the hot journal rolls back a half-written
 * commit) and holds everything committed, i.e. all output older than
 * {@link COMMIT_INTERVAL_MS}. A power cut may lose more; the file belongs to
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
import { maxOutputBytes } from "../limits.ts";
import {
  type QueryResult,
  type RawRecord,
  RecordText,
  SOURCE_CODE,
  SOURCE_NAME,
} from "./record_text.ts";
import {
  FRAME_RECORDS,
  frameRecords,
  type FrameRow,
  packFrames,
  unpackFrame,
} from "./record_frames.ts";
import { prepareStatements, SCHEMA, type Statements } from "./record_schema.ts";
import type { ProcessDetails, Source } from "./schema.ts";

export type { IoRecord, QueryResult, RawRecord } from "./record_text.ts";

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

/** Sequence numbers per process: a key is `process_id · SEQ_SPAN + seq`. */
const SEQ_SPAN = 2 ** 32;
/** Process ids whose keys stay exact in a double. */
const MAX_PROCESS_ID = 2 ** 21 - 1;

/** Selection of records for a query. */
export interface RecordQuery {
  sources: Source[];
  /** Only records with `seq` greater than this, per source. */
  afterSeq?: Partial<Record<Source, number>>;
  /** Only records at or after this timestamp. */
  sinceTimestamp?: number;
  /** Stop collecting once this many characters of content were collected. */
  maxChars?: number;
  /** Spend `maxChars` on the newest records rather than the oldest. */
  newest?: boolean;
  /** The output came through a terminal: its CRs are dropped. */
  dropCR?: boolean;
}

/** What the owner of a process learns from retention, and what it protects from it. */
export interface RetentionHooks {
  /** Records after this `seq` are kept even past the cap (a screen has not parsed them yet). */
  keepAfter?(): number;
  /** Called for each record dropped by the cap, oldest first. */
  dropped?(record: Omit<RawRecord, "bytes">, bytes: number): void;
}

interface Pending {
  processId: number;
  key: number;
  record: RawRecord;
}

interface Usage {
  bytes: number;
  hooks: RetentionHooks;
}

/** The records table and the processes table in one SQLite file. */
export class RecordStore {
  readonly #db: DatabaseSync;
  readonly #maxBytes: number;
  readonly #commitBytes: number;
  #pending: Pending[] = [];
  #pendingBytes = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #usage = new Map<number, Usage>();
  #vacuum = false;
  readonly #sql: Statements;

  /**
   * Opens (creating) the database at `path`; `":memory:"` works for tests.
   * `maxOutputBytes`: the per-process cap on stored records, 0 for none; by
   * default `PORTAL_MAX_OUTPUT_BYTES` ({@link maxOutputBytes}).
   */
  constructor(path: string, options: { maxOutputBytes?: number } = {}) {
    this.#maxBytes = options.maxOutputBytes ?? maxOutputBytes();
    // A small cap commits (and so trims) in smaller batches.
    this.#commitBytes = this.#maxBytes > 0
      ? Math.min(COMMIT_BYTES, Math.ceil(this.#maxBytes / 4))
      : COMMIT_BYTES;
    this.#db = new DatabaseSync(path);
    // 4 KiB pages: a commit rewrites the last page of each busy process, and the kernel writes
    // each such page back about every 30 s, so page size sets what a chatty program costs on
    // disk (1 / 10 chatty PTYs, measured: 64 KiB pages 8.9× / 8.3× their output, 16 KiB 6.9× /
    // 5.8×, 4 KiB 3.9× / 3.3×). A flood pays for it: 2.5× the SQLite time of 64 KiB pages.
    // The rollback journal writes a flood once (new pages need no journal) where a WAL writes
    // it twice; a truncated journal makes ext4 write it out at once (115× the output), a
    // persisted one is rewritten in place; no fsync (see the module doc). auto_vacuum must
    // precede the first table: it lets a cleanup give the space back.
    this.#db.exec(`PRAGMA page_size = 4096; PRAGMA auto_vacuum = INCREMENTAL;
      PRAGMA journal_mode = PERSIST; PRAGMA synchronous = OFF; PRAGMA busy_timeout = 2000;`);
    this.#db.exec(SCHEMA);
    this.#sql = prepareStatements(this.#db);
  }

  /** The per-process cap on stored bytes; 0: none. */
  get maxOutputBytes(): number {
    return this.#maxBytes;
  }

  /** Registers what retention tells the owner of `processId`, and what it must keep. */
  track(processId: number, hooks: RetentionHooks): void {
    this.#usageOf(processId).hooks = hooks;
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
    this.#pendingBytes += record.bytes.length;
    this.#usageOf(processId).bytes += record.bytes.length;
    if (this.#pendingBytes >= this.#commitBytes) this.flush();
    else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.flush(), COMMIT_INTERVAL_MS);
      Deno.unrefTimer(this.#timer);
    }
  }

  /** Commits every buffered record, and drops what is past the cap, in one transaction. */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.length === 0 && !this.#vacuum) return;
    const batch = this.#pending;
    this.#pending = [];
    this.#pendingBytes = 0;
    // Each process's records in order, so that its runs of small records pack into frames.
    const byProcess = Map.groupBy(batch, (p) => p.processId);
    this.#transaction(() => {
      for (const records of byProcess.values()) {
        for (const f of packFrames(records)) {
          this.#sql.insert.run(f.key, f.timestamp, f.source, f.content, f.count, f.layout);
        }
      }
      if (this.#maxBytes > 0) {
        for (const [processId, usage] of this.#usage) {
          if (usage.bytes > this.#maxBytes) this.#trim(processId, usage);
        }
      }
    });
    if (this.#vacuum) {
      this.#vacuum = false;
      this.#db.exec("PRAGMA incremental_vacuum");
    }
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
      low = Math.max(low, this.#lastKeyBefore(processId, q.sinceTimestamp));
    }
    const scan = this.#scan(processId, low, bounds, q.newest ?? false);
    const text = new RecordText(
      q.dropCR ?? false,
      (source, seq) => this.#before(processId, source, seq),
    );
    const limits = { maxChars: q.maxChars, sinceTimestamp: q.sinceTimestamp };
    return q.newest ? text.newest(scan, limits) : text.oldest(scan, limits);
  }

  /** Raw records of one source after `afterSeq`, oldest first, until `maxBytes` are collected. */
  raw(processId: number, source: Source, afterSeq: number, maxBytes: number): RawRecord[] {
    const base = processId * SEQ_SPAN;
    const bounds = [SEQ_SPAN, SEQ_SPAN, SEQ_SPAN].map((b) => base + b);
    bounds[SOURCE_CODE[source]] = base + afterSeq;
    const out: RawRecord[] = [];
    let bytes = 0;
    for (const record of this.#scan(processId, base + afterSeq, bounds, false)) {
      out.push(record);
      bytes += record.bytes.length;
      if (bytes >= maxBytes) break;
    }
    return out;
  }

  /** Deletes the records of a process (the process row stays). */
  deleteRecords(processId: number): void {
    this.flush();
    const base = processId * SEQ_SPAN;
    this.#sql.deleteRange.run(base, base + SEQ_SPAN - 1);
    const usage = this.#usage.get(processId);
    if (usage) usage.bytes = 0;
    this.#vacuum = true;
    this.flush();
  }

  /** Writes or replaces a process row. */
  saveProcess(row: ProcessDetails): void {
    const r = row;
    const values: (string | number | null)[] = [r.id, r.command, JSON.stringify(r.args), r.cwd];
    values.push(JSON.stringify(r.env), r.pty ? 1 : 0, r.timeout_ms, r.os_pid, r.status);
    this.#db.prepare(
      `INSERT OR REPLACE INTO processes (id, command, args, cwd, env, pty, timeout_ms, os_pid,
        status, exit_code, exit_signal, started_at, ended_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
    ).run(...values, r.exit_code, r.exit_signal, r.started_at, r.ended_at);
  }

  /** Deletes a process row and all its records. */
  deleteProcess(processId: number): void {
    this.deleteRecords(processId);
    this.#usage.delete(processId);
    this.#db.prepare("DELETE FROM processes WHERE id = ?").run(processId);
  }

  /** Commits what is buffered and closes the file. */
  close(): void {
    this.flush();
    this.#db.close();
  }

  #usageOf(processId: number): Usage {
    let usage = this.#usage.get(processId);
    if (!usage) this.#usage.set(processId, usage = { bytes: 0, hooks: {} });
    return usage;
  }

  #transaction(work: () => void): void {
    this.#db.exec("BEGIN");
    try {
      work();
      this.#db.exec("COMMIT");
    } catch (error) {
      this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  /**
   * Drops the oldest records of a process until it holds 7/8 of the cap (so
   * drops come in batches), never past what its owner still needs.
   */
  #trim(processId: number, usage: Usage): void {
    const base = processId * SEQ_SPAN;
    const keepAfter = usage.hooks.keepAfter?.() ?? SEQ_SPAN - 1;
    const target = this.#maxBytes - (this.#maxBytes >> 3);
    let last = -1;
    type Sized = Omit<FrameRow, "content"> & { size: number };
    for (const row of this.#sql.sizes.iterate(base, base + keepAfter) as Iterable<Sized>) {
      if (usage.bytes <= target) break;
      const records = frameRecords(row, base);
      if (records[records.length - 1].seq > keepAfter) break;
      usage.bytes -= row.size;
      last = row.key;
      const source = SOURCE_NAME[row.source];
      for (const { seq, timestamp, start, end } of records) {
        usage.hooks.dropped?.({ seq, timestamp, source }, end - start);
      }
    }
    if (last >= 0) this.#sql.deleteRange.run(base, last);
  }

  /**
   * The last committed key of a process whose row's first record is older
   * than `timestamp` (or the start of its range): a bisection, timestamps
   * growing with seq, so a window starts there however long the history
   * before it.
   */
  #lastKeyBefore(processId: number, timestamp: number): number {
    let low = processId * SEQ_SPAN;
    let high = low + SEQ_SPAN;
    // Invariant: the answer is in [low, high); no record at or past `high` is older.
    while (high - low > 1) {
      const mid = Math.floor((low + high) / 2);
      const row = this.#sql.first.get(mid, high) as { key: number; timestamp: number } | undefined;
      if (row === undefined || row.timestamp >= timestamp) high = mid;
      else low = row.key;
    }
    return low;
  }

  /**
   * Records of a process in key order (committed, then buffered) with keys
   * past `low` and past `bounds` per source.
   */
  *#scan(processId: number, low: number, bounds: number[], desc: boolean): Generator<RawRecord> {
    const base = processId * SEQ_SPAN;
    const high = base + SEQ_SPAN;
    const wanted = (key: number, source: Source) => key > low && key > bounds[SOURCE_CODE[source]];
    const pending = this.#pending
      .filter((p) => p.processId === processId && wanted(p.key, p.record.source))
      .map((p) => p.record);
    if (desc) yield* pending.reverse();
    // A frame that starts at or before a bound may hold records past it: the SQL bounds
    // move back to its start, and its records are picked one by one.
    const rowBounds = [low, ...bounds].map((b) => b < high ? this.#frameStart(base, b) : b);
    const statement = desc ? this.#sql.desc : this.#sql.asc;
    for (const row of statement.iterate(...rowBounds.slice(0, 1), high, ...rowBounds.slice(1))) {
      const records = [...unpackFrame(row as unknown as FrameRow, base)];
      if (desc) records.reverse();
      for (const record of records) {
        if (wanted(base + record.seq, record.source)) yield record;
      }
    }
    if (!desc) yield* pending;
  }

  /** `key` itself, or just before the start of a frame that holds it and more after it. */
  #frameStart(base: number, key: number): number {
    const row = this.#sql.frameAt.get(key, base) as { key: number; count: number } | undefined;
    return row !== undefined && row.key + row.count - 1 > key ? row.key - 1 : key;
  }

  /** The record of `source` just before `seq`, looked for among the few records before it. */
  #before(processId: number, source: Source, seq: number): RawRecord | undefined {
    const base = processId * SEQ_SPAN;
    for (let i = this.#pending.length - 1; i >= 0; i--) {
      const p = this.#pending[i];
      if (p.processId === processId && p.key < base + seq && p.record.source === source) {
        return p.record;
      }
    }
    // A frame holding the record before `seq` starts at most FRAME_RECORDS keys before it.
    const from = Math.max(base, base + seq - 64 - FRAME_RECORDS);
    const row = this.#sql.previous.get(from, base + seq, SOURCE_CODE[source]) as
      | FrameRow
      | undefined;
    if (row === undefined) return undefined;
    return [...unpackFrame(row, base)].findLast((record) => record.seq < seq);
  }
}
