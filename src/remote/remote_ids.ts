/**
 * The processes this server runs on other machines: each one's local id
 * (from the server's one id counter, so it never meets a local process's)
 * and what it is there (machine, remote id), which session started it, and
 * what it was when last seen. Who sees which is the rule of local
 * processes, the same function (session_view.ts's `sees`). Each has its row
 * in the records database, as a local process (`machine`, `remote_id`: where it
 * runs), so a later host of the same database takes the kept ones over
 * (they outlive a host there), with the same ids.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RemoteIds } from "./remote_ids.ts";
 *
 * let next = 7;
 * const rows = { saveProcess() {}, deleteProcess() {}, restorableProcesses: () => [] };
 * const ids = new RemoteIds(() => next++, rows);
 * const mine = {};
 * const entry = ids.add({
 *   machine: "db1",
 *   remoteId: 3,
 *   owner: mine,
 *   keep: false,
 *   policy: undefined,
 *   startedAt: new Date().toISOString(),
 *   environment: undefined,
 *   seenAt: Date.now(),
 * });
 * assert.equal(entry.id, 7);
 * assert.equal(ids.localOf("db1", 3), 7);
 * assert.deepEqual(ids.visibleTo({}), []);
 * ids.leave(mine);
 * assert.equal(ids.get(7), undefined);
 * ```
 * @module
 */
import { type ProcessSummary, processSummary, project } from "../core/model/schema.ts";
import type { ClientEnvironment, Session } from "../core/process/pool.ts";
import type { ProcessRow } from "../core/store/processes_table.ts";
import type { ListedProcess } from "../core/watch/watched_process.ts";
import type { Policy } from "../core/policy/policy.ts";
import { sees } from "../core/process/session_view.ts";
import { pickProcess } from "../core/model/process_target.ts";

/** Where remote processes' rows are kept: the records database's processes table. */
export interface RemoteRows {
  saveProcess(row: ProcessRow, options?: { now?: boolean }): void;
  deleteProcess(id: number): void;
  /** The rows an earlier host left (with `true`: those on other machines). */
  restorableProcesses(remote: true): ProcessRow[];
}

/** One remote process as this server knows it. */
export interface RemoteEntry {
  /** Its id here. */
  readonly id: number;
  readonly machine: string;
  readonly remoteId: number;
  /** The session that started it (null: it has left, the process was kept). */
  owner: Session | null;
  readonly keep: boolean;
  readonly policy: Policy | undefined;
  /** When it was started, as this server saw it. */
  readonly startedAt: string;
  /** The environment of the client that started it: how its machine is reached again. */
  readonly environment: ClientEnvironment | undefined;
  /** Its line of the remote's process_list when last seen (with the local id). */
  summary?: Record<string, unknown>;
  /** When its machine last answered about it (ms since the epoch). */
  seenAt: number;
  /** Since when, and why, its machine has not answered (unset while it answers). */
  unreachable?: { since: string; why: string };
}

export class RemoteIds {
  readonly #takeId: () => number;
  readonly #rows: RemoteRows;
  readonly #byId = new Map<number, RemoteEntry>();

  /** Local ids come from `takeId` (the server's one counter); rows are kept in `rows`. */
  constructor(takeId: () => number, rows: RemoteRows) {
    this.#takeId = takeId;
    this.#rows = rows;
  }

  /** Gives a new remote process its local id (its row is written once it has a summary). */
  add(entry: Omit<RemoteEntry, "id">): RemoteEntry {
    const added = { ...entry, id: this.#takeId() };
    this.#byId.set(added.id, added);
    return added;
  }

  /**
   * Takes over the kept remote processes an earlier host left in the database (they ran on
   * there), as last seen, unowned; the rows of unkept ones go (they ended with its links).
   * Returns how many.
   */
  adoptEarlier(): number {
    let adopted = 0;
    for (const row of this.#rows.restorableProcesses(true)) {
      if (!row.keep) {
        this.#rows.deleteProcess(row.id);
        continue;
      }
      const { machine = "", remote_id: remoteId = 0 } = row;
      const state = row.status === "running" ? "running" : "exited";
      this.#byId.set(row.id, {
        ...{ id: row.id, machine, remoteId, owner: null, keep: true, policy: undefined },
        ...{ startedAt: row.started_at, environment: undefined, seenAt: Date.now() },
        summary: { ...project(processSummary, { ...row, state }), machine },
      });
      adopted++;
    }
    return adopted;
  }

  /** The rows a watch page of `session` lists for its remote processes, as last seen. */
  listed(session: Session): ListedProcess[] {
    return this.visibleTo(session).flatMap((entry) => {
      const s = entry.summary as ProcessSummary | undefined;
      if (s === undefined) return [];
      return [{
        ...{ id: entry.id, name: s.name, command: s.command, args: [], pty: s.pty },
        ...{ status: s.status, state: s.state, controlled_by: s.controlled_by },
        ...{ started_at: entry.startedAt, ended_at: null, exit_code: null, exit_signal: null },
        ...{ cols: null, rows: null, policy: null, machine: entry.machine },
      }];
    });
  }

  /** Every remote process as last seen (`portal ps`: a person's view, with no call to any machine). */
  known(): Record<string, unknown>[] {
    return this.visibleTo({ seesAll: true }).flatMap((entry) => this.shown(entry));
  }

  /** Writes `entry`'s row: as a local process's, with where it runs. */
  save(entry: RemoteEntry, options: { now?: boolean } = {}): void {
    const s = entry.summary as ProcessSummary | undefined;
    if (s === undefined) return;
    this.#rows.saveProcess({
      ...s,
      ...{ args: [], cwd: "", env: [], cols: null, rows: null, exit_code: null },
      ...{ exit_signal: null, core_dumped: false, started_at: entry.startedAt, ended_at: null },
      ...{ stdout_count: 0, stderr_count: 0, stdin_count: 0, shell_integration: "off" },
      ...{ last_command: null, machine: entry.machine, remote_id: entry.remoteId },
    }, options);
  }

  /** `entry`'s line as last seen, with since when and why its machine has not answered, if so. */
  shown(entry: RemoteEntry): Record<string, unknown>[] {
    if (entry.summary === undefined) return [];
    const { unreachable } = entry;
    return [
      unreachable
        ? { ...entry.summary, unreachable: `since ${unreachable.since}: ${unreachable.why}` }
        : entry.summary,
    ];
  }

  get(id: number): RemoteEntry | undefined {
    return this.#byId.get(id);
  }

  /**
   * `MACHINE:ID` of the remote process named `target` here (its local id,
   * or its name), as `portal attach` there needs it; undefined if none is.
   */
  targetOf(target: string): string | undefined {
    const entries = this.visibleTo({ seesAll: true }).map((entry) => ({
      entry,
      id: entry.id,
      name: typeof entry.summary?.name === "string" ? entry.summary.name : null,
      running: entry.summary?.status === "running",
    }));
    const picked = pickProcess(entries, target)?.entry;
    return picked && `${picked.machine}:${picked.remoteId}`;
  }

  /** The local id of `remoteId` on `machine`, if this server knows it. */
  localOf(machine: string, remoteId: number): number | undefined {
    for (const entry of this.#byId.values()) {
      if (entry.machine === machine && entry.remoteId === remoteId) return entry.id;
    }
    return undefined;
  }

  /** Forgets a remote process, its row too. */
  remove(id: number): void {
    this.#byId.delete(id);
    this.#rows.deleteProcess(id);
  }

  /** The remote processes `session` sees, oldest first. */
  visibleTo(session: Session): RemoteEntry[] {
    // The one rule of local processes (session_view.ts).
    return [...this.#byId.values()].filter((entry) => sees(session, entry));
  }

  /**
   * `session` has left: its unkept processes ended with its links (they are
   * forgotten), its kept ones are no one's now.
   */
  leave(session: Session): void {
    for (const entry of this.#byId.values()) {
      if (entry.owner !== session) continue;
      if (entry.keep) entry.owner = null;
      else this.remove(entry.id);
    }
  }
}
