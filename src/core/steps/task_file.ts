/**
 * The durable side of long steps a client polls (MCP tasks, in the MCP
 * layer): one row per task in a small SQLite file beside the records
 * database, written when the task is created (before its id is handed out),
 * when its status changes, and when it ends (with its outcome, as the MCP
 * layer encodes it). A client that comes back later, or after the server
 * restarted, finds the task by its id; a row still `working` from an earlier
 * run tells that the wait was cut short. Rows go {@link TaskFile.forget}
 * after they ended, and the newest `max` are kept at most.
 *
 * Its own file, not a table of the records database: that one is written by
 * the commit worker, and a task's write (synchronous, on the server's event
 * loop) must never wait for a commit's lock. Owner-only, like the records.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TaskFile } from "./task_file.ts";
 *
 * const path = Deno.makeTempFileSync({ suffix: ".tasks" });
 * const file = new TaskFile(path);
 * file.save({ id: "t1", status: "working", createdAt: 1, updatedAt: 1, what: "a build" });
 * file.save({ id: "t1", status: "completed", createdAt: 1, updatedAt: 2, what: "a build", outcome: "{}" });
 * file.close();
 * const again = new TaskFile(path);
 * assert.equal(again.load("t1")?.status, "completed");
 * assert.equal(again.load("t2"), undefined);
 * again.close();
 * Deno.removeSync(path);
 * ```
 * @module
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { ensurePrivateFile } from "../store/paths.ts";

/** Where a task is: it starts `working`, may wait on `input_required`, and ends in one of {@link ENDED}. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** The statuses a task ends in: it never leaves one (both revisions of MCP tasks say so). */
export const ENDED: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "cancelled"]);

/** Whether a task in `status` has ended. */
export function hasEnded(status: TaskStatus): boolean {
  return ENDED.has(status);
}

/**
 * Where a server keeps its tasks: a {@link TaskFile} (a server's), or a
 * map (a test's). The MCP layer's task table is built on one.
 */
export interface TaskStore {
  save(row: TaskRow): void;
  load(id: string): TaskRow | undefined;
  forget(endedBefore: number, max: number): void;
}

/** One task as stored: what the MCP layer needs to answer for it later. */
export interface TaskRow {
  id: string;
  status: TaskStatus;
  /** Milliseconds since the epoch. */
  createdAt: number;
  updatedAt: number;
  /** What it waits for, in words. */
  what: string;
  /** Once ended: the reply or the error, as the MCP layer encoded it. */
  outcome?: string;
}

/** The file of tasks of `records`, the records database's path. */
export function taskFilePath(records: string): string {
  return `${records}.tasks`;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS tasks (
  id TEXT PRIMARY KEY, status TEXT NOT NULL, created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL, what TEXT NOT NULL, outcome TEXT
);
CREATE INDEX IF NOT EXISTS tasks_by_update ON tasks (updated_at);
`;

/** The SQL list of {@link ENDED}. */
const ENDED_SQL = [...ENDED].map((status) => `'${status}'`).join(", ");

/** A server's tasks on disk. */
export class TaskFile implements TaskStore {
  readonly #db: DatabaseSync;
  readonly #save: StatementSync;
  readonly #load: StatementSync;
  readonly #forget: StatementSync;

  constructor(path: string) {
    ensurePrivateFile(path);
    this.#db = new DatabaseSync(path);
    // Small rows, written one at a time: no fsync (as the records), a journal per write.
    this.#db.exec("PRAGMA busy_timeout = 2000; PRAGMA synchronous = OFF;" + SCHEMA);
    this.#save = this.#db.prepare(
      `INSERT OR REPLACE INTO tasks (id, status, created_at, updated_at, what, outcome)
        VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.#load = this.#db.prepare(
      `SELECT id, status, created_at AS createdAt, updated_at AS updatedAt, what, outcome
        FROM tasks WHERE id = ?`,
    );
    this.#forget = this.#db.prepare(
      `DELETE FROM tasks WHERE (updated_at < ? AND status IN (${ENDED_SQL}))
        OR id NOT IN (SELECT id FROM tasks ORDER BY updated_at DESC LIMIT ?)`,
    );
  }

  save(row: TaskRow): void {
    const { id, status, createdAt, updatedAt, what, outcome = null } = row;
    this.#save.run(id, status, createdAt, updatedAt, what, outcome);
  }

  load(id: string): TaskRow | undefined {
    const row = this.#load.get(id) as TaskRow & { outcome: string | null } | undefined;
    if (row === undefined) return undefined;
    return row.outcome === null ? { ...row, outcome: undefined } : row;
  }

  forget(endedBefore: number, max: number): void {
    this.#forget.run(endedBefore, max);
  }

  close(): void {
    this.#db.close();
  }
}
