/**
 * Reads through a read-only connection to a file a live server writes.
 * SQLite's check for a hot journal can race a commit that is starting: the
 * journal, kept between commits, gets its header after the reader looked for
 * the writer's lock and before it looked at the header. The reader then takes
 * the commit's journal for a crash's, cannot roll it back read-only, and the
 * read fails with "attempt to write a readonly database". A commit ends within
 * milliseconds, so the read is tried again until the deadline.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DatabaseSync } from "node:sqlite";
 * import { readLive } from "./live_reads.ts";
 *
 * const db = new DatabaseSync(":memory:");
 * assert.deepEqual({ ...readLive(() => db.prepare("SELECT 1 AS one").get()) }, { one: 1 });
 * ```
 * @module
 */

/** What SQLite says when a read-only connection finds a journal to roll back. */
const ROLLBACK_RACE = "attempt to write a readonly database";
/** As long as the store's busy timeout: a commit holds the file no longer. */
const DEADLINE_MS = 2000;
const PAUSE_MS = 2;

/** `read()`, tried again while it loses the race above, until {@link DEADLINE_MS}. */
export function readLive<T>(read: () => T): T {
  const deadline = performance.now() + DEADLINE_MS;
  for (;;) {
    try {
      return read();
    } catch (error) {
      const raced = (error as Error)?.message?.includes(ROLLBACK_RACE) === true;
      if (!raced || performance.now() > deadline) throw error;
      // A synchronous pause: the callers are synchronous, and the commit runs on another thread.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, PAUSE_MS);
    }
  }
}
