/**
 * What one commit writes to the `records` table, and the transaction that
 * writes it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DatabaseSync } from "node:sqlite";
 * import { writeBatch } from "./commit_batch.ts";
 * import { prepareStatements, SCHEMA } from "./tables.ts";
 *
 * const db = new DatabaseSync(":memory:");
 * db.exec(SCHEMA);
 * const sql = prepareStatements(db);
 * const content = new Uint8Array(3);
 * writeBatch(db, sql, {
 *   frames: [{ key: 1, timestamp: 0, source: 1, content, count: 1, layout: null }],
 *   deletes: [],
 * });
 * writeBatch(db, sql, { frames: [], deletes: [[0, 1]] });
 * assert.equal(sql.asc.all(0, 10, 0, 0, 0, 10).length, 0);
 * ```
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { FrameRow } from "./frames/packing.ts";
import type { RecordStatements } from "./tables.ts";

/** New rows, then the key ranges `(from, to]` that the cap drops. */
export interface CommitBatch {
  frames: FrameRow[];
  deletes: [number, number][];
}

/** Runs `work` in one transaction; rolls back (if SQLite has not already) when it throws. */
export function transaction(db: DatabaseSync, work: () => void): void {
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

/** Writes `batch` in one transaction. */
export function writeBatch(
  db: DatabaseSync,
  sql: Pick<RecordStatements, "insert" | "deleteRange">,
  batch: CommitBatch,
): void {
  transaction(db, () => {
    for (const f of batch.frames) {
      sql.insert.run(f.key, f.timestamp, f.source, f.content, f.count, f.layout);
    }
    for (const [from, to] of batch.deletes) sql.deleteRange.run(from, to);
  });
}
