/**
 * The tables of the records database: `processes` (metadata) and `records`
 * (raw bytes in frames: a run of records of one source keyed by
 * `process_id · 2³² + seq` of the first, see record_frames.ts), and the
 * `process_records` view that shows them by process, first seq and source
 * name, with how many records each row holds, for people and tools reading
 * the file; and the statements the store runs over them.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

/** Run once per connection: creates what is missing. */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS processes (
  id INTEGER PRIMARY KEY, command TEXT NOT NULL, args TEXT NOT NULL, cwd TEXT NOT NULL,
  env TEXT NOT NULL, pty INTEGER NOT NULL, timeout_ms INTEGER NOT NULL, os_pid INTEGER NOT NULL,
  status TEXT NOT NULL, exit_code INTEGER, exit_signal TEXT, started_at TEXT NOT NULL,
  ended_at TEXT
);
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
    asc: select + " ORDER BY key",
    desc: select + " ORDER BY key DESC",
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
  };
  return Object.fromEntries(
    Object.entries(statements).map(([name, sql]) => [name, db.prepare(sql)]),
  ) as Record<keyof typeof statements, StatementSync>;
}

/** See {@link prepareStatements}. */
export type Statements = ReturnType<typeof prepareStatements>;
