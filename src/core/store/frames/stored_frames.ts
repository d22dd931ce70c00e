/**
 * Reads committed records out of the frames of the `records` table (see
 * packing.ts), by key range: each query starts where it is asked to,
 * so its cost does not grow with the history before it. A process's keys run
 * from `base` (`process_id · 2³²`) to `base + 2³²`.
 *
 * @module
 */
import { FRAME_RECORDS, frameRecords, type FrameRow, unpackFrame } from "./packing.ts";
import { readLive } from "../live_reads.ts";
import { type RecordStatements, SEQ_SPAN } from "../tables.ts";
import { type RawRecord, SOURCE_CODE, SOURCE_NAME } from "../records.ts";
import type { Source } from "../../model/schema.ts";

/** What the file holds of a process's records (see {@link StoredFrames.stats}). */
export interface RecordStats {
  counts: Record<Source, number>;
  lastSeq: number;
  lastNs: number;
}

/** Rows read at once at most (a flood's rows are up to 1 MiB each). */
const MAX_PAGE_ROWS = 32;

/** The committed records of every process, read through the store's statements. */
export class StoredFrames {
  readonly #sql: RecordStatements;

  constructor(sql: RecordStatements) {
    this.#sql = sql;
  }

  /**
   * The last key of the process at `base` whose row's first record is older
   * than `timestamp` (or `base`): a bisection, timestamps growing with seq, so
   * a window starts there however long the history before it.
   */
  lastKeyBefore(base: number, timestamp: number): number {
    let low = base;
    let high = base + SEQ_SPAN;
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
   * The records of the process at `base` whose keys are past `low` and past
   * `bounds` (one per source code) and before `high` (default: the end of its range), in key
   * order or (`desc`) newest first.
   */
  *records(
    base: number,
    low: number,
    bounds: number[],
    desc: boolean,
    high = base + SEQ_SPAN,
  ): Generator<RawRecord> {
    const wanted = (record: RawRecord) =>
      base + record.seq > low && base + record.seq > bounds[SOURCE_CODE[record.source]];
    // A frame that starts at or before a bound may hold records past it: the SQL bounds
    // move back to its start, and its records are picked one by one.
    const [from, ...sources] = [low, ...bounds].map((b) =>
      b < high ? this.#frameStart(base, b) : b
    );
    for (const row of this.#rows(from, high, sources, desc)) {
      const records = [...unpackFrame(row, base)];
      if (desc) records.reverse();
      yield* records.filter(wanted);
    }
  }

  /**
   * The records of the process at `base` past `low` and before `high`, of
   * every source, oldest first, as runs: the records of one frame joined into
   * one, the seq and timestamp of its first and its bytes a view of them all,
   * cut where timestamps reach `since` (a run is all older than `since` or
   * none). A long read (a search of 200 MB) thus makes an object per frame
   * (~4,000), not per record (~230,000).
   */
  *runs(base: number, low: number, since: number, high = base + SEQ_SPAN): Generator<RawRecord> {
    const from = low < high ? this.#frameStart(base, low) : low;
    for (const row of this.#rows(from, high, [from, from, from], false)) {
      const source = SOURCE_NAME[row.source];
      if (row.key > low && row.timestamp >= since) {
        // All of it wanted and, timestamps growing with seq, all in scope: no layout to read.
        const { timestamp, content: bytes } = row;
        yield { seq: row.key - base, timestamp, source, bytes };
        continue;
      }
      const metas = frameRecords({ ...row, size: row.content.length }, base)
        .filter((meta) => base + meta.seq > low);
      const cut = metas.findIndex((meta) => meta.timestamp >= since);
      for (const run of cut < 0 ? [metas] : [metas.slice(0, cut), metas.slice(cut)]) {
        if (run.length === 0) continue;
        const { seq, timestamp, start } = run[0];
        yield { seq, timestamp, source, bytes: row.content.subarray(start, run.at(-1)!.end) };
      }
    }
  }

  /**
   * The rows with keys in (`start`, `end`) past `sources` (a bound per source
   * code), in key order or (`desc`) newest first. Pages of rows, each read at
   * once (all()): between them, no statement holds the file's shared lock,
   * which would keep the server from committing (this reader may be another
   * process's, portal export's; a consumer may stop, or wait, anywhere). Small
   * at first (most reads want a row or two), growing for long reads.
   */
  *#rows(start: number, end: number, sources: number[], desc: boolean): Generator<FrameRow> {
    const statement = desc ? this.#sql.desc : this.#sql.asc;
    for (let size = 2;; size = Math.min(2 * size, MAX_PAGE_ROWS)) {
      // Each page is a read of its own, so each may meet a commit starting (live_reads.ts).
      const rows = readLive(() =>
        statement.all(start, end, ...sources, size)
      ) as unknown as FrameRow[];
      yield* rows;
      if (rows.length < size) return;
      if (desc) end = rows[rows.length - 1].key;
      else start = rows[rows.length - 1].key;
    }
  }

  /** The committed record of `source` just before `seq`, looked for among the few before it. */
  before(base: number, source: Source, seq: number): RawRecord | undefined {
    // A frame holding the record before `seq` starts at most FRAME_RECORDS keys before it.
    const from = Math.max(base, base + seq - 64 - FRAME_RECORDS);
    const row = this.#sql.previous.get(from, base + seq, SOURCE_CODE[source]) as
      | FrameRow
      | undefined;
    if (row === undefined) return undefined;
    return [...unpackFrame(row, base)].findLast((record) => record.seq < seq);
  }

  /**
   * What the file holds of the records of the process at `base`: how many
   * per source, the highest seq, and the newest timestamp (of a row's first record).
   */
  stats(base: number): RecordStats {
    const rows = this.#sql.stats.all(base, base + SEQ_SPAN) as unknown as {
      source: number;
      n: number;
      last: number;
      ts: number;
    }[];
    const counts: Record<Source, number> = { stdin: 0, stdout: 0, stderr: 0 };
    let lastSeq = 0;
    let lastNs = 0;
    for (const row of rows) {
      counts[SOURCE_NAME[row.source]] = row.n;
      lastSeq = Math.max(lastSeq, row.last - base);
      lastNs = Math.max(lastNs, row.ts);
    }
    return { counts, lastSeq, lastNs };
  }

  /** `key` itself, or just before the start of a frame that holds it and more after it. */
  #frameStart(base: number, key: number): number {
    const row = this.#sql.frameAt.get(key, base) as { key: number; count: number } | undefined;
    return row !== undefined && row.key + row.count - 1 > key ? row.key - 1 : key;
  }
}
