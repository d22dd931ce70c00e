/**
 * The records database's settings, its tables, and the statements the store
 * runs on them: `processes` (metadata) and `records` (raw bytes keyed by
 * `process_id · 2³² + seq`), and the `process_records` view that shows
 * records by process, seq and source name for people and tools reading the
 * file.
 *
 * @module
 */

import type { DatabaseSync, StatementSync } from "node:sqlite";

/** SQLite header field `application_id` of a Portal records database: "Port" (see records_files.ts). */
export const PORTAL_APPLICATION_ID = 0x506f7274;

/**
 * Run first on each connection. 64 KiB pages hold a 64 KiB chunk in two pages; the rollback
 * journal writes a flood once (new pages need no journal) where a WAL writes it twice; no
 * fsync (see record_store.ts). auto_vacuum must precede the first table: it lets a cleanup give
 * the space back. Deleted records leave no text in the files: their cells are zeroed
 * (secure_delete FAST, no extra I/O), freed pages leave at the vacuum, and the journal is
 * emptied at each commit.
 */
export const PRAGMAS = `PRAGMA page_size = 65536; PRAGMA auto_vacuum = INCREMENTAL;
  PRAGMA journal_mode = PERSIST; PRAGMA synchronous = OFF; PRAGMA busy_timeout = 2000;
  PRAGMA secure_delete = FAST; PRAGMA journal_size_limit = 0;`;

/** Run once per connection: marks the file as Portal's, creates what is missing. */
export const SCHEMA = `
PRAGMA application_id = ${PORTAL_APPLICATION_ID};
CREATE TABLE IF NOT EXISTS processes (
  id INTEGER PRIMARY KEY, command TEXT NOT NULL, args TEXT NOT NULL, cwd TEXT NOT NULL,
  env TEXT NOT NULL, pty INTEGER NOT NULL, timeout_ms INTEGER NOT NULL, os_pid INTEGER NOT NULL,
  status TEXT NOT NULL, exit_code INTEGER, exit_signal TEXT, started_at TEXT NOT NULL,
  ended_at TEXT
);
CREATE TABLE IF NOT EXISTS records (
  key INTEGER PRIMARY KEY, timestamp INTEGER NOT NULL, source INTEGER NOT NULL,
  content BLOB NOT NULL
);
CREATE VIEW IF NOT EXISTS process_records (process_id, seq, timestamp, source, content) AS
  SELECT key >> 32, key & 4294967295, timestamp,
    CASE source WHEN 0 THEN 'stdin' WHEN 1 THEN 'stdout' ELSE 'stderr' END, content
  FROM records;
`;

/** The statements on `records` the store runs, prepared once per connection. */
export interface RecordStatements {
  insert: StatementSync;
  /** A process's range in key order, each source after its own bound. */
  asc: StatementSync;
  desc: StatementSync;
  /** The newest record of a source within a key range. */
  previous: StatementSync;
  /** The first key and timestamp within a key range. */
  first: StatementSync;
  /** Keys, sources and sizes within a key range, for the cap. */
  sizes: StatementSync;
  deleteRange: StatementSync;
}

/** Prepares {@link RecordStatements} on `db` (whose {@link SCHEMA} has run). */
export function prepareStatements(db: DatabaseSync): RecordStatements {
  // One range per process; a source that is not wanted gets a bound past the range.
  const select = `SELECT key, timestamp, source, content FROM records WHERE key > ? AND key < ?
    AND ((source = 0 AND key > ?) OR (source = 1 AND key > ?) OR (source = 2 AND key > ?))`;
  return {
    insert: db.prepare("INSERT INTO records (key, timestamp, source, content) VALUES (?, ?, ?, ?)"),
    asc: db.prepare(select + " ORDER BY key"),
    desc: db.prepare(select + " ORDER BY key DESC"),
    previous: db.prepare(`SELECT key, timestamp, source, content FROM records
      WHERE key >= ? AND key < ? AND source = ? ORDER BY key DESC LIMIT 1`),
    first: db.prepare(
      "SELECT key, timestamp FROM records WHERE key >= ? AND key < ? ORDER BY key LIMIT 1",
    ),
    sizes: db.prepare(`SELECT key, timestamp, source, length(content) AS size FROM records
      WHERE key > ? AND key <= ? ORDER BY key`),
    deleteRange: db.prepare("DELETE FROM records WHERE key > ? AND key <= ?"),
  };
}
