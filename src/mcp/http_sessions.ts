/**
 * The live sessions of the HTTP server, and their bounds, so that clients
 * that go away without a `DELETE` cannot make the server grow for ever (a
 * thousand of them cost 126 MB, never given back). A session is idle while
 * none of its requests is open: not a call in progress, not a stream of
 * server messages (the SDK client keeps a GET stream open for as long as it
 * is connected). One idle longer than `idleMs` ends by itself; and at most
 * `max` live at once: a new one beyond it ends the session idle the
 * longest, or, when every session has a request open, is refused.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SessionTable } from "./http_sessions.ts";
 *
 * const ended: string[] = [];
 * const table = new SessionTable({ idleMs: 60_000, max: 2, onEnd: (id) => ended.push(id) });
 * const session = (id: string) => ({ end: () => Promise.resolve(void table.delete(id)) });
 * table.add("a", session("a"));
 * table.add("b", session("b"));
 * const done = table.begin("b");
 * assert.ok(table.makeRoom()); // "a" is idle: it ends for the new one
 * assert.deepEqual(ended, ["a"]);
 * table.add("c", session("c"));
 * table.begin("c");
 * assert.ok(!table.makeRoom()); // "b" and "c" each have a request open
 * done();
 * assert.ok(table.makeRoom());
 * table.close();
 * ```
 * @module
 */
import { IdleTimeouts } from "../core/process/idle_timeout.ts";

/** What the table needs of a session: a way to end it (which deletes it from the table). */
export interface Endable {
  end(): Promise<void>;
}

/** Why a session ended by the table's doing. */
export type EndReason = "idle" | "room";

interface Entry<S> {
  session: S;
  /** Requests of it that are open now. */
  open: number;
  /** `performance.now()` since when none is open. */
  idleSince: number;
}

/** See the module doc. */
export class SessionTable<S extends Endable> {
  readonly #entries = new Map<string, Entry<S>>();
  /** Each session's idle timer, held off while a request of it is open. */
  readonly #idle = new IdleTimeouts<string>((id) => this.#end(id, "idle"));
  readonly #idleMs: number;
  readonly #max: number;
  readonly #onEnd: (id: string, why: EndReason) => void;

  /** `idleMs` 0: sessions never end by being idle. `onEnd` hears of each the table ends. */
  constructor(options: {
    idleMs: number;
    max: number;
    onEnd: (id: string, why: EndReason) => void;
  }) {
    this.#idleMs = options.idleMs;
    this.#max = options.max;
    this.#onEnd = options.onEnd;
  }

  get(id: string): S | undefined {
    return this.#entries.get(id)?.session;
  }

  values(): S[] {
    return [...this.#entries.values()].map((entry) => entry.session);
  }

  /** Adds a session that has just started (its initialize request is answered). */
  add(id: string, session: S): void {
    this.#entries.set(id, { session, open: 0, idleSince: performance.now() });
    this.#idle.arm(id, this.#idleMs);
  }

  /** Forgets session `id` (it ended). */
  delete(id: string): void {
    this.#idle.clear(id);
    this.#entries.delete(id);
  }

  /** A request of session `id` is open until the returned function is called. */
  begin(id: string): () => void {
    const entry = this.#entries.get(id);
    if (entry === undefined) return () => {};
    entry.open++;
    this.#idle.hold(id);
    let closed = false;
    return () => {
      if (closed || this.#entries.get(id) !== entry) return;
      closed = true;
      if (--entry.open === 0) entry.idleSince = performance.now();
      this.#idle.release(id, this.#idleMs);
    };
  }

  /**
   * Whether one more session may start: there is room, or the session idle
   * the longest was ended to make it; false when every session is busy.
   */
  makeRoom(): boolean {
    if (this.#entries.size < this.#max) return true;
    let oldest: [string, Entry<S>] | undefined;
    for (const pair of this.#entries) {
      if (pair[1].open === 0 && (oldest === undefined || pair[1].idleSince < oldest[1].idleSince)) {
        oldest = pair;
      }
    }
    if (oldest === undefined) return false;
    this.#end(oldest[0], "room");
    return true;
  }

  /** Stops every idle timer (the server is stopping; it ends the sessions itself). */
  close(): void {
    for (const id of this.#entries.keys()) this.#idle.clear(id);
  }

  /** Ends session `id`: gone from the table at once, its processes on their way out. */
  #end(id: string, why: EndReason): void {
    const entry = this.#entries.get(id);
    if (entry === undefined) return;
    this.delete(id);
    this.#onEnd(id, why);
    void entry.session.end();
  }
}
