/**
 * The commit Worker: writes the records store's batches (batch.ts)
 * to the file through a connection of its own, so that SQLite's page writes
 * (a third of the server's CPU during a flood) run beside the thread that
 * reads programs and answers calls. One batch at a time; the server's
 * thread waits for it only to write itself (see thread.ts).
 *
 * Batches come and outcomes go through shared memory (codec.ts): the
 * Worker waits on `Atomics.waitAsync` for the next batch, and the server's thread
 * sees an outcome as soon as it looks, without a message; a message after
 * each only wakes its event loop, in case nothing else does.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { writeBatch } from "./batch.ts";
import { decodeBatch } from "./codec.ts";
import { PRAGMAS, prepareStatements } from "../tables.ts";
import { type CommitWorkerStart, STATE, STATUS } from "./thread.ts";

// deno-lint-ignore no-explicit-any
const scope = self as any;

scope.onmessage = async ({ data }: MessageEvent<CommitWorkerStart>) => {
  const state = new Int32Array(data.state);
  const error = new Uint8Array(data.error);
  let db: DatabaseSync | undefined;
  let sql: ReturnType<typeof prepareStatements>;
  for (let done = 0;; done++) {
    // Waited for without blocking the thread: its event loop goes on (Deno's own tasks).
    await Atomics.waitAsync(state, STATE.sent, done).value;
    if (Atomics.load(state, STATE.close) === 1) {
      db?.close();
      return finish(state, STATUS.written);
    }
    let status: number = STATUS.written;
    try {
      if (db === undefined) {
        // Opened here, so that a failure to open is the batch's, told like any other.
        const opened = new DatabaseSync(data.path);
        opened.exec(PRAGMAS);
        sql = prepareStatements(opened);
        db = opened;
      }
      writeBatch(db, sql!, decodeBatch(data.batch));
    } catch (failure) {
      status = STATUS.failed;
      const text = new TextEncoder().encode((failure as Error)?.message ?? String(failure));
      const length = Math.min(text.length, error.length);
      error.set(text.subarray(0, length));
      Atomics.store(state, STATE.errorLength, length);
    }
    finish(state, status);
  }
};

function finish(state: Int32Array, status: number): void {
  Atomics.store(state, STATE.status, status);
  Atomics.notify(state, STATE.status);
  scope.postMessage(status);
}
