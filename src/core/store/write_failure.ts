/**
 * When the records file cannot be written (a full disk, an I/O error, a file
 * made read-only, a reader holding a lock too long): what the store does, and
 * what the agent is told. The store keeps the records it could not commit in
 * memory, where reads still find them, up to {@link HELD_BYTES} (the oldest
 * go beyond, counted in the reads' `dropped_bytes`), and tries again every
 * {@link RETRY_MS}; programs keep running. Calls that would add records
 * (`process_start`, `process_write`) are refused with {@link
 * WriteFailure.message} until a commit succeeds again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WriteFailure } from "./write_failure.ts";
 *
 * const failure = new WriteFailure("/tmp/r.db");
 * const heard: (string | null)[] = [];
 * failure.onChange = (message) => heard.push(message);
 * failure.failed(new Error("database or disk is full"));
 * assert.match(failure.message!, /Cannot write the records database \/tmp\/r.db: database or disk is full/);
 * assert.throws(() => failure.failed(new Error("UNIQUE constraint failed")));
 * failure.succeeded();
 * assert.equal(failure.message, null);
 * assert.equal(heard.length, 2);
 * ```
 * @module
 */
import { PortalError } from "../../errors.ts";

/** While the file cannot be written, a commit is tried again this often. */
export const RETRY_MS = 1000;
/** ...and at most this much output waits in memory; the oldest goes beyond it. */
export const HELD_BYTES = 16 << 20;

/** SQLite's words for a write a later attempt may get past (node:sqlite gives no code). */
const TRANSIENT =
  /disk is full|disk I\/O error|readonly database|unable to open database file|database (table )?is locked|out of memory|locking protocol/;

/** Whether the records file can be written now, and since when not. */
export class WriteFailure {
  readonly #path: string;
  #since: Date | null = null;
  #reason = "";
  /** Told when writing starts failing (with the message) and when it works again (null). */
  onChange?: (message: string | null) => void;

  constructor(path: string) {
    this.#path = path;
  }

  get failing(): boolean {
    return this.#since !== null;
  }

  /** Notes `error` if it is a failed write; throws it again if it is anything else (a bug). */
  failed(error: unknown): void {
    const reason = (error as Error)?.message ?? String(error);
    if (!TRANSIENT.test(reason)) throw error;
    if (this.#since !== null) return;
    this.#since = new Date();
    this.#reason = reason;
    this.onChange?.(this.message);
  }

  /** Runs a write that cannot wait; if the file cannot be written, throws the {@link message}. */
  attempt<T>(write: () => T): T {
    try {
      return write();
    } catch (error) {
      this.failed(error);
      throw new PortalError(this.message!, "storage");
    }
  }

  /** A commit went through: everything waiting is in the file. */
  succeeded(): void {
    if (this.#since === null) return;
    this.#since = null;
    this.onChange?.(null);
  }

  /** What a call that cannot go on says while writing fails; null while it works. */
  get message(): string | null {
    if (this.#since === null) return null;
    return `Cannot write the records database ${this.#path}: ${this.#reason} (since ` +
      `${this.#since.toISOString()}). Programs keep running; up to ${HELD_BYTES >> 20} MiB of ` +
      "their new output waits in memory, the oldest dropped beyond that (reads say so in " +
      "dropped_bytes). Free space on that disk; reads, process_signal and process_kill still " +
      "work, and process_clear or process_cleanup free space in the file.";
  }
}
