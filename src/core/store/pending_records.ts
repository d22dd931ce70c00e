/**
 * Records waiting for the store's next commit, in arrival order. Queries see
 * them as if they were stored. A commit takes them all; one that fails (the
 * file cannot be written, see write_failure.ts) puts them back, and they are
 * held, the oldest dropped past a bound, until a commit goes through.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PendingRecords } from "./pending_records.ts";
 *
 * const pending = new PendingRecords();
 * const record = (seq: number) => ({ seq, timestamp: seq, source: "stdout" as const, bytes: new Uint8Array(10) });
 * for (const seq of [1, 2, 3]) pending.push({ processId: 1, key: seq, record: record(seq) });
 * const batch = pending.take();
 * assert.equal(pending.bytes, 0);
 * pending.restore(batch);
 * const dropped: number[] = [];
 * pending.trimTo(20, (p) => dropped.push(p.record.seq));
 * assert.deepEqual([dropped, pending.bytes], [[1], 20]);
 * ```
 * @module
 */
import type { RawRecord } from "./records.ts";

/** A record, whose process it is, and its key in the records table. */
export interface Pending {
  processId: number;
  key: number;
  record: RawRecord;
}

/** Records not committed yet. */
export class PendingRecords {
  #list: Pending[] = [];
  #bytes = 0;

  /** Bytes of the records waiting. */
  get bytes(): number {
    return this.#bytes;
  }

  get empty(): boolean {
    return this.#list.length === 0;
  }

  push(item: Pending): void {
    this.#list.push(item);
    this.#bytes += item.record.bytes.length;
  }

  /** All of them, for a commit; none wait afterwards. */
  take(): Pending[] {
    const batch = this.#list;
    this.#list = [];
    this.#bytes = 0;
    return batch;
  }

  /** Puts back a batch whose commit failed, ahead of any that came since. */
  restore(batch: Pending[]): void {
    this.#list = batch.concat(this.#list);
    this.#bytes = this.#list.reduce((n, p) => n + p.record.bytes.length, 0);
  }

  /** Forgets the records of `processId` (they are being deleted). */
  forget(processId: number): void {
    this.restore(this.take().filter((p) => p.processId !== processId));
  }

  /** Drops the oldest until at most `maxBytes` wait, telling `dropped` of each. */
  trimTo(maxBytes: number, dropped: (item: Pending) => void): void {
    while (this.#bytes > maxBytes) {
      const item = this.#list.shift()!;
      this.#bytes -= item.record.bytes.length;
      dropped(item);
    }
  }

  /** The records `wanted` selects, oldest first. */
  filter(wanted: (item: Pending) => boolean): RawRecord[] {
    return this.#list.filter(wanted).map((p) => p.record);
  }

  /** The newest record `wanted` selects. */
  findLast(wanted: (item: Pending) => boolean): RawRecord | undefined {
    return this.#list.findLast(wanted)?.record;
  }
}
