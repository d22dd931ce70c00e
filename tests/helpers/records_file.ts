/**
 * Checks of a records database from outside its server: a read-only
 * connection per query, each read tried again while it races a live
 * server's commit (src/core/store/live_reads.ts).
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { readLive } from "../../src/core/store/live_reads.ts";

/** How long a query waits for a commit that holds the file. */
export const BUSY_TIMEOUT_MS = 10_000;

/** The rows `sql` selects from the records database at `path`. */
export function queryRecords<Row = Record<string, unknown>>(
  path: string,
  sql: string,
  ...params: (number | string)[]
): Row[] {
  using db = new DatabaseSync(path, { readOnly: true });
  // A commit holds the file for milliseconds, longer on a loaded machine: wait for it, as the
  // server's own connections do, with a bound only a stuck server reaches.
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return readLive(() => db.prepare(sql).all(...params)) as Row[];
}
