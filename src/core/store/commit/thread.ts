/**
 * Where the records store's commits are written: in the commit Worker
 * (worker.ts) for a file, on the calling thread for an in-memory
 * database (which no other connection can open). One batch is written at a
 * time; its outcome comes back through `onDone`, as soon as the server's
 * event loop hears of it, or at once when the caller {@link CommitThread.wait}s
 * for it (before a write of its own: two connections writing at once would
 * wait on each other's locks).
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { type CommitBatch, writeBatch } from "./batch.ts";
import { encodeBatch } from "./codec.ts";
import type { RecordStatements } from "../tables.ts";

/** The Worker's one message: the file, and the shared memory. */
export interface CommitWorkerStart {
  path: string;
  state: SharedArrayBuffer;
  batch: SharedArrayBuffer;
  error: SharedArrayBuffer;
}

/** Slots of the shared Int32Array: the outcome, its message's length, the batches sent. */
export const STATE = { status: 0, errorLength: 1, sent: 2, close: 3 } as const;
/** Values of `STATE.status`. */
export const STATUS = { idle: 0, busy: 1, written: 2, failed: 3 } as const;

/** The outcome of a batch: null when written, else SQLite's message. */
export type CommitDone = (error: Error | null) => void;

/** Bytes of an error message the Worker passes back. */
const ERROR_BYTES = 4096;
/** The shared batch's first size, and the most it grows to (reserved, not allocated). */
const BATCH_BYTES = 2 << 20;
const MAX_BATCH_BYTES = 1 << 30;
/** How long {@link CommitThread.wait} waits at most for a batch (SQLite's busy timeout is 2 s). */
const WAIT_MS = 10_000;

/** Writes batches one at a time, where the database allows. */
export interface CommitThread {
  /** Whether a batch is being written (asking settles one that is done). */
  readonly busy: boolean;
  /** Starts writing `batch` (never while {@link busy}); `onDone` hears how it went. */
  write(batch: CommitBatch, onDone: CommitDone): void;
  /** Returns once no batch is being written (its `onDone` has run). */
  wait(): void;
  /** Gets ready ahead of the first batch, which then does not wait for a Worker to start. */
  prepare(): void;
  /** Waits, then lets the thread go. */
  close(): void;
}

/** The thread for the database at `path` (its connection `db`, statements `sql`). */
export function commitThread(path: string, db: DatabaseSync, sql: RecordStatements): CommitThread {
  return path === ":memory:" ? new LocalThread(db, sql) : new WorkerThread(path);
}

/** Writes on the caller's thread, at once. */
class LocalThread implements CommitThread {
  readonly busy = false;
  readonly #db: DatabaseSync;
  readonly #sql: RecordStatements;

  constructor(db: DatabaseSync, sql: RecordStatements) {
    this.#db = db;
    this.#sql = sql;
  }

  write(batch: CommitBatch, onDone: CommitDone): void {
    let error: Error | null = null;
    try {
      writeBatch(this.#db, this.#sql, batch);
    } catch (failure) {
      error = failure as Error;
    }
    onDone(error);
  }

  wait(): void {}
  prepare(): void {}
  close(): void {}
}

/**
 * Writes in the commit Worker, started with the first batch (or {@link prepare}) and kept
 * until the store closes (starting one costs the starting thread 10-40 ms, and the Worker a
 * few hundred ms before it can write).
 */
class WorkerThread implements CommitThread {
  readonly #path: string;
  #worker: Worker | null = null;
  readonly #state = new Int32Array(new SharedArrayBuffer(16));
  readonly #batch = new SharedArrayBuffer(BATCH_BYTES, { maxByteLength: MAX_BATCH_BYTES });
  readonly #error = new Uint8Array(new SharedArrayBuffer(ERROR_BYTES));
  #onDone: CommitDone | null = null;
  #closed = false;

  constructor(path: string) {
    this.#path = path;
  }

  /** Whether a batch is being written; one that is done is settled (its `onDone` runs) here. */
  get busy(): boolean {
    this.#settle();
    return this.#onDone !== null;
  }

  write(batch: CommitBatch, onDone: CommitDone): void {
    if (this.busy) throw new Error("a batch is being written");
    encodeBatch(batch, this.#batch);
    this.#send(onDone);
  }

  wait(): void {
    if (this.#onDone === null) return;
    const deadline = performance.now() + WAIT_MS;
    while (Atomics.load(this.#state, STATE.status) === STATUS.busy) {
      const left = deadline - performance.now();
      if (left <= 0) throw new Error("the commit Worker did not answer within 10 s");
      Atomics.wait(this.#state, STATE.status, STATUS.busy, left);
    }
    this.#settle();
  }

  prepare(): void {
    if (!this.#closed) this.#start();
  }

  close(): void {
    this.#closed = true;
    this.wait();
    if (this.#worker === null) return;
    Atomics.store(this.#state, STATE.close, 1);
    this.#send(() => {});
    this.wait();
    this.#worker.terminate();
    this.#worker = null;
  }

  #send(onDone: CommitDone): void {
    this.#onDone = onDone;
    Atomics.store(this.#state, STATE.status, STATUS.busy);
    this.#start();
    Atomics.add(this.#state, STATE.sent, 1);
    Atomics.notify(this.#state, STATE.sent);
  }

  #start(): void {
    if (this.#worker) return;
    const worker = new Worker(new URL("./worker.ts", import.meta.url), { type: "module" });
    // Wakes the event loop, which may have nothing else to do, to hear the outcome.
    worker.onmessage = () => this.#settle();
    worker.onerror = (event) => {
      // A bug in the Worker, not a failed write: the server's thread says so and goes on.
      event.preventDefault();
      console.error(`portal: the commit Worker failed: ${event.message}`);
    };
    const start: CommitWorkerStart = {
      path: this.#path,
      state: this.#state.buffer as SharedArrayBuffer,
      batch: this.#batch,
      error: this.#error.buffer as SharedArrayBuffer,
    };
    worker.postMessage(start);
    this.#worker = worker;
  }

  /** Hands a finished batch's outcome to its `onDone` (once: whoever looks first). */
  #settle(): void {
    const onDone = this.#onDone;
    if (onDone === null) return;
    const status = Atomics.load(this.#state, STATE.status);
    if (status === STATUS.busy) return;
    this.#onDone = null;
    Atomics.store(this.#state, STATE.status, STATUS.idle);
    let error: Error | null = null;
    if (status === STATUS.failed) {
      const length = Atomics.load(this.#state, STATE.errorLength);
      error = new Error(new TextDecoder().decode(this.#error.slice(0, length)));
    }
    onDone(error);
  }
}
