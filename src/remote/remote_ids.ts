/**
 * The processes this server runs on other machines: each one's local id
 * (from the server's one id counter, so it never meets a local process's)
 * and what it is there (host, remote id), which session started it, and
 * what it was when last seen. Who sees which is the rule of local
 * processes, the same function (session_view.ts's `sees`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RemoteIds } from "./remote_ids.ts";
 *
 * let next = 7;
 * const ids = new RemoteIds(() => next++);
 * const mine = {};
 * const entry = ids.add({
 *   host: "db1",
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
 * assert.deepEqual(ids.leave(mine).map((e) => e.id), [7]);
 * assert.equal(ids.get(7), undefined);
 * ```
 * @module
 */
import type { ClientEnvironment, Session } from "../core/process/pool.ts";
import type { Policy } from "../core/policy/policy.ts";
import { sees } from "../core/process/session_view.ts";

/** One remote process as this server knows it. */
export interface RemoteEntry {
  /** Its id here. */
  readonly id: number;
  readonly host: string;
  readonly remoteId: number;
  /** The session that started it (null: it has left, the process was kept). */
  owner: Session | null;
  readonly keep: boolean;
  readonly policy: Policy | undefined;
  /** When it was started, as this server saw it. */
  readonly startedAt: string;
  /** The environment of the client that started it: how its host is reached again. */
  readonly environment: ClientEnvironment | undefined;
  /** Its line of the remote's process_list when last seen (with the local id). */
  summary?: Record<string, unknown>;
  /** When its host last answered about it (ms since the epoch). */
  seenAt: number;
  /** Since when, and why, its host has not answered (unset while it answers). */
  unreachable?: { since: string; why: string };
}

export class RemoteIds {
  readonly #takeId: () => number;
  readonly #byId = new Map<number, RemoteEntry>();

  /** Local ids come from `takeId` (the server's one counter). */
  constructor(takeId: () => number) {
    this.#takeId = takeId;
  }

  /** Gives a new remote process its local id. */
  add(entry: Omit<RemoteEntry, "id">): RemoteEntry {
    const added = { ...entry, id: this.#takeId() };
    this.#byId.set(added.id, added);
    return added;
  }

  get(id: number): RemoteEntry | undefined {
    return this.#byId.get(id);
  }

  /** The local id of `remoteId` on `host`, if this server knows it. */
  localOf(host: string, remoteId: number): number | undefined {
    for (const entry of this.#byId.values()) {
      if (entry.host === host && entry.remoteId === remoteId) return entry.id;
    }
    return undefined;
  }

  remove(id: number): void {
    this.#byId.delete(id);
  }

  /** The remote processes `session` sees, oldest first. */
  visibleTo(session: Session): RemoteEntry[] {
    return [...this.#byId.values()].filter((entry) => this.sees(session, entry));
  }

  /** Whether `session` sees `entry`: the one rule of local processes (session_view.ts). */
  sees(session: Session, entry: RemoteEntry): boolean {
    return sees(session, entry);
  }

  /**
   * `session` has left: its unkept processes ended with its links (they are
   * forgotten and returned), its kept ones are no one's now.
   */
  leave(session: Session): RemoteEntry[] {
    const ended: RemoteEntry[] = [];
    for (const entry of this.#byId.values()) {
      if (entry.owner !== session) continue;
      if (entry.keep) {
        entry.owner = null;
      } else {
        this.#byId.delete(entry.id);
        ended.push(entry);
      }
    }
    return ended;
  }
}
