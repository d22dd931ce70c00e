/**
 * The SQLite file that holds every process's I/O records and metadata. One
 * `records` table keyed by (process, sequence); writes are buffered and
 * committed in batches, and every query commits what is buffered first, so a
 * reader always sees everything appended before it asked.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RecordStore } from "./record_store.ts";
 *
 * const store = new RecordStore(":memory:");
 * store.append(1, { seq: 1, timestamp: 10, source: "stdout", content: "hi\n" });
 * store.append(1, { seq: 2, timestamp: 20, source: "stdin", content: "x\n" });
 * const { records } = store.query(1, { sources: ["stdout"] });
 * assert.deepEqual(records.map((r) => r.content), ["hi\n"]);
 * store.close();
 * ```
 *
 * @module
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { ProcessDetails, Source } from "./schema.ts";

const SOURCE_CODE: Record<Source, number> = { stdin: 0, stdout: 1, stderr: 2 };
const SOURCE_NAME: Source[] = ["stdin", "stdout", "stderr"];

/** One chunk of output, or one write to stdin. */
export interface IoRecord {
  /** Position within its process, starting at 1; strictly increasing. */
  seq: number;
  /** Nanoseconds since the process started (monotonic). */
  timestamp: number;
  source: Source;
  content: string;
}

/** Buffered records are committed once this many characters are waiting. */
const FLUSH_CHARS = 4 << 20;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS processes (
  id INTEGER PRIMARY KEY, command TEXT NOT NULL, args TEXT NOT NULL, cwd TEXT NOT NULL,
  env TEXT NOT NULL, pty INTEGER NOT NULL, timeout_ms INTEGER NOT NULL, os_pid INTEGER NOT NULL,
  status TEXT NOT NULL, exit_code INTEGER, exit_signal TEXT, started_at TEXT NOT NULL,
  ended_at TEXT
);
CREATE TABLE IF NOT EXISTS records (
  process_id INTEGER NOT NULL, seq INTEGER NOT NULL, timestamp INTEGER NOT NULL,
  source INTEGER NOT NULL, content TEXT NOT NULL, PRIMARY KEY (process_id, seq)
);
`;

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
}

interface StoredRow {
  seq: number;
  timestamp: number;
  source: number;
  content: string;
}

/** The records table and the processes table in one SQLite file. */
export class RecordStore {
  #db: DatabaseSync;
  #pending: [number, number, number, number, string][] = [];
  #pendingChars = 0;
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  #insert: StatementSync;
  #selectAsc: StatementSync;
  #selectDesc: StatementSync;

  /** Opens (creating) the database at `path`; `":memory:"` works for tests. */
  constructor(path: string) {
    this.#db = new DatabaseSync(path);
    // Output arrives in chunks of up to 64 KiB: pages that size keep a chunk out of overflow
    // chains (measured: 2.5x the insert rate of the default 4 KiB pages). It must be set
    // before the first table exists.
    this.#db.exec(
      "PRAGMA page_size = 65536; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;",
    );
    this.#db.exec(SCHEMA);
    this.#insert = this.#db.prepare(
      "INSERT INTO records (process_id, seq, timestamp, source, content) VALUES (?, ?, ?, ?, ?)",
    );
    // One statement serves every selection: a source that is not wanted gets a cursor past
    // any sequence number, and "no time window" is a window starting at 0.
    const select = `SELECT seq, timestamp, source, content FROM records WHERE process_id = ?
      AND ((source = 0 AND seq > ?) OR (source = 1 AND seq > ?) OR (source = 2 AND seq > ?))
      AND timestamp >= ? ORDER BY seq`;
    this.#selectAsc = this.#db.prepare(select);
    this.#selectDesc = this.#db.prepare(select + " DESC");
  }

  /** Buffers one record; it is committed within a few milliseconds, or sooner under load. */
  append(processId: number, record: IoRecord): void {
    this.#pending.push([
      processId,
      record.seq,
      record.timestamp,
      SOURCE_CODE[record.source],
      record.content,
    ]);
    this.#pendingChars += record.content.length;
    if (this.#pendingChars >= FLUSH_CHARS) this.flush();
    else if (this.#flushTimer === undefined) {
      this.#flushTimer = setTimeout(() => this.flush(), 5);
      Deno.unrefTimer(this.#flushTimer);
    }
  }

  /** Commits every buffered record in one transaction. */
  flush(): void {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    if (this.#pending.length === 0) return;
    const batch = this.#pending;
    this.#pending = [];
    this.#pendingChars = 0;
    this.#db.exec("BEGIN");
    try {
      for (const row of batch) this.#insert.run(...row);
      this.#db.exec("COMMIT");
    } catch (error) {
      this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  /**
   * Records of one process in order. With `maxChars`, stops once that much content was
   * collected (always returning at least one record); with `newest`, that budget goes to the
   * newest records instead of the oldest. `complete` tells whether anything was left out.
   */
  query(processId: number, q: RecordQuery): { records: IoRecord[]; complete: boolean } {
    this.flush();
    const after = (s: Source) =>
      q.sources.includes(s) ? q.afterSeq?.[s] ?? 0 : Number.MAX_SAFE_INTEGER;
    const statement = q.newest ? this.#selectDesc : this.#selectAsc;
    const rows = statement.iterate(
      processId,
      after("stdin"),
      after("stdout"),
      after("stderr"),
      q.sinceTimestamp ?? 0,
    ) as Iterable<StoredRow>;
    const records: IoRecord[] = [];
    let chars = 0;
    let complete = true;
    for (const row of rows) {
      if (
        q.maxChars !== undefined && records.length > 0 && chars + row.content.length > q.maxChars
      ) {
        complete = false;
        break;
      }
      chars += row.content.length;
      records.push({ ...row, source: SOURCE_NAME[row.source] });
    }
    if (q.newest) records.reverse();
    return { records, complete };
  }

  /** Deletes the records of a process (the process row stays). */
  deleteRecords(processId: number): void {
    this.flush();
    this.#db.prepare("DELETE FROM records WHERE process_id = ?").run(processId);
  }

  /** Writes or replaces a process row. */
  saveProcess(row: ProcessDetails): void {
    this.#db.prepare(
      `INSERT OR REPLACE INTO processes (id, command, args, cwd, env, pty, timeout_ms, os_pid,
        status, exit_code, exit_signal, started_at, ended_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
    ).run(
      row.id,
      row.command,
      JSON.stringify(row.args),
      row.cwd,
      JSON.stringify(row.env),
      row.pty ? 1 : 0,
      row.timeout_ms,
      row.os_pid,
      row.status,
      row.exit_code,
      row.exit_signal,
      row.started_at,
      row.ended_at,
    );
  }

  /** Deletes a process row and all its records. */
  deleteProcess(processId: number): void {
    this.deleteRecords(processId);
    this.#db.prepare("DELETE FROM processes WHERE id = ?").run(processId);
  }

  /** Commits what is buffered and closes the file. */
  close(): void {
    this.flush();
    this.#db.close();
  }
}
