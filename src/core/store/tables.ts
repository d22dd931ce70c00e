/**
 * The records database's settings, its tables, and the statements the store
 * runs on them: `processes` (metadata) and `records` (raw bytes in frames: a
 * run of records of one source keyed by `process_id · 2³² + seq` of the
 * first, see frames/packing.ts), `terminal_sizes` (a PTY's size at its start
 * and after each resize, for recordings), and the `process_records` view that shows
 * them by process, first seq and source name, with how many records each row
 * holds, for people and tools reading the file.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

/**
 * Keys per process: a record's key is `process_id · SEQ_SPAN + seq` (the
 * `process_records` view splits it with `>> 32`).
 */
export const SEQ_SPAN = 2 ** 32;

/** SQLite header field `application_id` of a Portal records database: "Port" (see database_file.ts). */
export const PORTAL_APPLICATION_ID = 0x506f7274;

/**
 * Run first on each connection. 4 KiB pages: a commit rewrites the last page of each busy
 * process, and the kernel writes each such page back about every 30 s, so the page size sets
 * what a chatty program costs on disk; the smallest page costs least (docs/decisions/
 * 2026-12-02-choices-the-figures-made.md). The rollback journal writes a flood once (new pages
 * need no journal) where a WAL writes it twice; it persists, rewritten in place, because a
 * journal truncated at every commit makes ext4 write it out at once; only a commit that
 * deleted records empties it ({@link TRUNCATE_JOURNAL}). No fsync (see record_store.ts).
 * Deleted records leave no text in the file: their cells are zeroed (secure_delete FAST, no
 * extra I/O) and freed pages leave at the vacuum ({@link markFile}). The busy timeout first: the
 * journal mode takes a lock that a reader of the file (`portal export`) may hold a moment.
 */
export const PRAGMAS = `PRAGMA busy_timeout = 2000; PRAGMA page_size = 4096;
  PRAGMA journal_mode = PERSIST; PRAGMA synchronous = OFF; PRAGMA secure_delete = FAST;`;

/**
 * Run on the store's connection before {@link SCHEMA}: what a new file's header gets.
 * auto_vacuum must precede the first table: it lets a cleanup give the space back; the
 * application id marks the file as Portal's. Each is set only when it differs: setting it
 * again would write the header of an existing file, which is not written before its pages
 * are read (it may be damaged: nothing of it changes then).
 */
export function markFile(db: DatabaseSync): void {
  const get = (name: string) =>
    (db.prepare(`PRAGMA ${name}`).get() as Record<string, number>)[name];
  if (get("auto_vacuum") !== 2) db.exec("PRAGMA auto_vacuum = INCREMENTAL");
  if (get("application_id") !== PORTAL_APPLICATION_ID) {
    db.exec(`PRAGMA application_id = ${PORTAL_APPLICATION_ID}`);
  }
}

/**
 * Run around the commit after records were deleted: the journal then holds the deleted pages
 * as they were, so that commit leaves it empty, and the next ones persist it again.
 */
export const TRUNCATE_JOURNAL = {
  on: "PRAGMA journal_size_limit = 0",
  off: "PRAGMA journal_size_limit = -1",
};

/** Run once per connection: creates what is missing (an existing file is not written). */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS processes (
  id INTEGER PRIMARY KEY, command TEXT NOT NULL, args TEXT NOT NULL, cwd TEXT NOT NULL,
  env TEXT NOT NULL, pty INTEGER NOT NULL, timeout_ms INTEGER NOT NULL, os_pid INTEGER NOT NULL,
  status TEXT NOT NULL, exit_code INTEGER, exit_signal TEXT, started_at TEXT NOT NULL,
  ended_at TEXT, keep INTEGER NOT NULL DEFAULT 0, name TEXT, policy TEXT, host TEXT,
  remote_id INTEGER
);
CREATE TABLE IF NOT EXISTS terminal_sizes (
  process_id INTEGER NOT NULL, timestamp INTEGER NOT NULL, cols INTEGER NOT NULL,
  rows INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS terminal_sizes_by_process ON terminal_sizes (process_id, timestamp);
CREATE TABLE IF NOT EXISTS records (
  key INTEGER PRIMARY KEY, timestamp INTEGER NOT NULL, source INTEGER NOT NULL,
  content BLOB NOT NULL, count INTEGER NOT NULL, layout BLOB
);
CREATE VIEW IF NOT EXISTS process_records (process_id, seq, timestamp, source, content, records)
  AS SELECT key >> 32, key & 4294967295, timestamp,
    CASE source WHEN 0 THEN 'stdin' WHEN 1 THEN 'stdout' ELSE 'stderr' END, content, count
  FROM records;
`;

/** Columns every row query returns. */
const COLUMNS = "key, timestamp, source, content, count, layout";

/** The store's statements, prepared once per connection. */
export function prepareStatements(db: DatabaseSync) {
  // One range per process; a source that is not wanted gets a bound past the range.
  const select = `SELECT ${COLUMNS} FROM records WHERE key > ? AND key < ?
    AND ((source = 0 AND key > ?) OR (source = 1 AND key > ?) OR (source = 2 AND key > ?))`;
  const statements = {
    insert: `INSERT INTO records (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`,
    /** A page of rows: a statement left open between pages would keep the commits out. */
    asc: select + " ORDER BY key LIMIT ?",
    desc: select + " ORDER BY key DESC LIMIT ?",
    /** The last row of a source in a key range. */
    previous: `SELECT ${COLUMNS} FROM records WHERE key >= ? AND key < ? AND source = ?
      ORDER BY key DESC LIMIT 1`,
    /** The first row's key and timestamp in a key range. */
    first: "SELECT key, timestamp FROM records WHERE key >= ? AND key < ? ORDER BY key LIMIT 1",
    /** The row at or before a key (params: key, the range's start). */
    frameAt: "SELECT key, count FROM records WHERE key <= ? AND key > ? ORDER BY key DESC LIMIT 1",
    /** What retention needs to know of each row in a range, without its bytes. */
    sizes: `SELECT key, timestamp, source, length(content) AS size, count, layout FROM records
      WHERE key > ? AND key <= ? ORDER BY key`,
    deleteRange: "DELETE FROM records WHERE key > ? AND key <= ?",
    /** Per source in a key range: how many records, the last key, the newest row's time. */
    stats: `SELECT source, sum(count) AS n, max(key + count - 1) AS last, max(timestamp) AS ts
      FROM records WHERE key > ? AND key < ? GROUP BY source`,
  };
  return Object.fromEntries(
    Object.entries(statements).map(([name, sql]) => [name, db.prepare(sql)]),
  ) as Record<keyof typeof statements, StatementSync>;
}

/** See {@link prepareStatements}. */
export type RecordStatements = ReturnType<typeof prepareStatements>;
