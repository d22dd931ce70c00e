/**
 * The tables of the records database: `processes` (metadata) and `records`
 * (raw bytes keyed by `process_id · 2³² + seq`), and the `process_records`
 * view that shows records by process, seq and source name for people and
 * tools reading the file.
 *
 * @module
 */

/** SQLite header field `application_id` of a Portal records database: "Port" (see records_files.ts). */
export const PORTAL_APPLICATION_ID = 0x506f7274;

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
