/**
 * Checks of a records database from outside its server: a read-only
 * connection per query, each read tried again while it races a live
 * server's commit (src/core/store/live_reads.ts).
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { readLive } from "../../src/core/store/live_reads.ts";

/** The rows `sql` selects from the records database at `path`. */
export function queryRecords<Row = Record<string, unknown>>(
  path: string,
  sql: string,
  ...params: (number | string)[]
): Row[] {
  using db = new DatabaseSync(path, { readOnly: true });
  return readLive(() => db.prepare(sql).all(...params)) as Row[];
}
