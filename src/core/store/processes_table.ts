/**
 * The `processes` table of the records database: a row per process, kept in
 * memory until the store's next commit writes it with the records (so a row
 * waits, like a record, while the file cannot be written), and the highest id
 * the file has seen, from which a reopened database's new ids go on. A PTY's
 * sizes (`terminal_sizes`) are kept and written the same way. A process on
 * another machine has its row too (`machine`, in the column `host`, and
 * `remote_id`: where it runs), so a later host finds it again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DatabaseSync } from "node:sqlite";
 * import { ProcessesTable } from "./processes_table.ts";
 * import { SCHEMA } from "./tables.ts";
 *
 * const db = new DatabaseSync(":memory:");
 * db.exec(SCHEMA);
 * const table = new ProcessesTable(db);
 * assert.equal(table.highestId(), 0);
 * db.exec("INSERT INTO records VALUES (7 * 4294967296 + 1, 0, 1, x'41', 1, NULL)");
 * assert.equal(table.highestId(), 7);
 * ```
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { ProcessDetails } from "../model/schema.ts";

/** A row: a process's details, and for one on another machine its id there. */
export type ProcessRow = ProcessDetails & { remote_id?: number };

/** A terminal's size from `timestamp` (ns since its process started) on. */
export interface TerminalSize {
  timestamp: number;
  cols: number;
  rows: number;
}

/** The processes table: its rows, written with the store's commits. */
export class ProcessesTable {
  readonly #db: DatabaseSync;
  readonly #upsert: StatementSync;
  readonly #unsaved = new Map<number, ProcessRow>();
  readonly #unsavedSizes: (TerminalSize & { processId: number })[] = [];
  readonly #insertSize: StatementSync;
  readonly #sizes: StatementSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    addMissingColumns(db);
    this.#upsert = db.prepare(
      `INSERT OR REPLACE INTO processes (id, command, args, cwd, env, pty, timeout_ms, os_pid,
        status, exit_code, exit_signal, started_at, ended_at, keep, name, policy, host, remote_id)
        VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
    );
    this.#insertSize = db.prepare("INSERT INTO terminal_sizes VALUES (?, ?, ?, ?)");
    this.#sizes = db.prepare(
      "SELECT timestamp, cols, rows FROM terminal_sizes WHERE process_id = ? ORDER BY timestamp",
    );
  }

  /** Keeps `row` for the next commit (a later one for the same id replaces it). */
  save(row: ProcessRow): void {
    this.#unsaved.set(row.id, row);
  }

  /** Keeps a terminal size of `processId` for the next commit. */
  saveSize(processId: number, size: TerminalSize): void {
    this.#unsavedSizes.push({ processId, ...size });
  }

  /** The sizes of `processId`'s terminal, oldest first, written or waiting. */
  sizes(processId: number): TerminalSize[] {
    const written = this.#sizes.all(processId) as unknown as TerminalSize[];
    const waiting = this.#unsavedSizes.filter((s) => s.processId === processId);
    return [...written, ...waiting.map(({ timestamp, cols, rows }) => ({ timestamp, cols, rows }))];
  }

  /** Whether rows wait for a commit. */
  get waiting(): boolean {
    return this.#unsaved.size > 0 || this.#unsavedSizes.length > 0;
  }

  /** Writes the rows that wait, inside the commit's transaction; {@link written} once it held. */
  write(): void {
    for (const r of this.#unsaved.values()) {
      const values: (string | number | null)[] = [r.id, r.command, JSON.stringify(r.args), r.cwd];
      values.push(JSON.stringify(r.env), r.pty ? 1 : 0, r.timeout_ms, r.os_pid, r.status);
      values.push(r.exit_code, r.exit_signal, r.started_at, r.ended_at, r.keep ? 1 : 0, r.name);
      values.push(r.policy ? JSON.stringify(r.policy) : null);
      values.push(r.machine ?? null, r.remote_id ?? null);
      this.#upsert.run(...values);
    }
    for (const s of this.#unsavedSizes) {
      this.#insertSize.run(s.processId, s.timestamp, s.cols, s.rows);
    }
  }

  /** The commit that wrote them held. */
  written(): void {
    this.#unsaved.clear();
    this.#unsavedSizes.length = 0;
  }

  /** Forgets a process's row, waiting or written. */
  delete(processId: number): void {
    this.#unsaved.delete(processId);
    const waiting = this.#unsavedSizes.filter((s) => s.processId !== processId);
    this.#unsavedSizes.splice(0, Infinity, ...waiting);
    this.#db.prepare("DELETE FROM processes WHERE id = ?").run(processId);
    this.#db.prepare("DELETE FROM terminal_sizes WHERE process_id = ?").run(processId);
  }

  /**
   * The rows a new host takes over from an earlier one: kept processes, and
   * those still `running` (their host died holding them), oldest first; with
   * `remote`, those on other machines instead (which outlive a host).
   */
  restorable(remote = false): ProcessRow[] {
    const rows = this.#db.prepare(
      `SELECT * FROM processes WHERE (keep = 1 OR status = 'running')
        AND host IS ${remote ? "NOT NULL" : "NULL"} ORDER BY id`,
    ).all() as Columns[];
    return rows.map(rowOf);
  }

  /** Process `id`'s row as written, if the file has one. */
  row(id: number): ProcessRow | undefined {
    const row = this.#db.prepare("SELECT * FROM processes WHERE id = ?").get(id);
    return row && rowOf(row as Columns);
  }

  /** Ids of the processes that ended before `iso` (an ISO time), for retention. */
  endedBefore(iso: string): number[] {
    return (this.#db.prepare("SELECT id FROM processes WHERE ended_at < ?").all(iso) as {
      id: number;
    }[]).map((row) => row.id);
  }

  /** The highest process id the file has seen, rows and records both (0 when new). */
  highestId(): number {
    const row = this.#db.prepare(
      `SELECT max(coalesce((SELECT max(id) FROM processes), 0),
        coalesce((SELECT max(key) FROM records), 0) >> 32) AS id`,
    ).get() as { id: number };
    return row.id;
  }
}

/** A row's columns, as SQLite gives them. */
type Columns = Record<string, string | number | null>;

/** A written row as a process's details: what only a live process knows is at rest. */
function rowOf(row: Columns): ProcessRow {
  return {
    ...row.host === null ? {} : { machine: String(row.host), remote_id: Number(row.remote_id) },
    id: Number(row.id),
    name: row.name === null ? null : String(row.name),
    command: String(row.command),
    os_pid: Number(row.os_pid),
    status: row.status as ProcessDetails["status"],
    state: "exited",
    pty: row.pty === 1,
    keep: row.keep === 1,
    timeout_ms: Number(row.timeout_ms),
    inactive_duration_ms: 0,
    io_count: 0,
    args: JSON.parse(String(row.args)),
    cwd: String(row.cwd),
    env: JSON.parse(String(row.env)),
    cols: null,
    rows: null,
    exit_code: row.exit_code === null ? null : Number(row.exit_code),
    exit_signal: row.exit_signal === null ? null : String(row.exit_signal),
    core_dumped: false,
    started_at: String(row.started_at),
    ended_at: row.ended_at === null ? null : String(row.ended_at),
    stdout_count: 0,
    stderr_count: 0,
    stdin_count: 0,
    controlled_by: "agent",
    shell_integration: "off",
    last_command: null,
    ...row.policy === null ? {} : { policy: JSON.parse(String(row.policy)) },
  };
}

/**
 * Columns a database made by an earlier Portal lacks: `keep` and `name`
 * came with the host, `policy` (the rules as shown, JSON) later, `host` (a
 * remote process's machine: the column keeps its first name, so a database
 * stays readable by every Portal) and `remote_id` with remote processes' rows.
 */
function addMissingColumns(db: DatabaseSync): void {
  const columns = new Set(
    (db.prepare("PRAGMA table_info(processes)").all() as { name: string }[]).map((c) => c.name),
  );
  if (!columns.has("keep")) {
    db.exec("ALTER TABLE processes ADD COLUMN keep INTEGER NOT NULL DEFAULT 0");
  }
  if (!columns.has("name")) db.exec("ALTER TABLE processes ADD COLUMN name TEXT");
  if (!columns.has("policy")) db.exec("ALTER TABLE processes ADD COLUMN policy TEXT");
  if (!columns.has("host")) db.exec("ALTER TABLE processes ADD COLUMN host TEXT");
  if (!columns.has("remote_id")) db.exec("ALTER TABLE processes ADD COLUMN remote_id INTEGER");
}
