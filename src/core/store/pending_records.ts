/**
 * Records the store has not committed yet, in arrival order. Queries see
 * them as if they were stored. A commit takes those that wait; they stay
 * here, seen by queries, until it is known to have held ({@link confirm}).
 * One that fails (the file cannot be written, see write_failure.ts) puts them
 * back ({@link restore}), and they are held, the oldest dropped past a bound,
 * until a commit goes through.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PendingRecords } from "./pending_records.ts";
 *
 * const pending = new PendingRecords();
 * const record = (seq: number) => ({ seq, timestamp: seq, source: "stdout" as const, bytes: new Uint8Array(10) });
 * for (const seq of [1, 2, 3]) pending.push({ processId: 1, key: seq, record: record(seq) });
 * pending.take();
 * assert.equal(pending.bytes, 0);
 * assert.equal(pending.firstKey(1), 1);
 * pending.restore();
 * const dropped: number[] = [];
 * pending.trimTo(20, (p) => dropped.push(p.record.seq));
 * assert.deepEqual([dropped, pending.bytes], [[1], 20]);
 * pending.take();
 * pending.confirm();
 * assert.equal(pending.firstKey(1), undefined);
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
  /** How many of the oldest are being committed. */
  #taken = 0;
  #bytes = 0;

  /** Bytes of the records waiting for a commit (not those being committed). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Whether none waits for a commit. */
  get empty(): boolean {
    return this.#list.length === this.#taken;
  }

  push(item: Pending): void {
    this.#list.push(item);
    this.#bytes += item.record.bytes.length;
  }

  /** Those that wait, for a commit: queries still see them until it is {@link confirm}ed. */
  take(): Pending[] {
    const batch = this.#list.slice(this.#taken);
    this.#taken = this.#list.length;
    this.#bytes = 0;
    return batch;
  }

  /** The commit of what was taken held: they are in the file. */
  confirm(): void {
    this.#list.splice(0, this.#taken);
    this.#taken = 0;
  }

  /** The commit of what was taken failed: they wait again, ahead of any that came since. */
  restore(): void {
    this.#taken = 0;
    this.#bytes = this.#list.reduce((n, p) => n + p.record.bytes.length, 0);
  }

  /** Forgets the records of `processId` (they are being deleted); none may be being committed. */
  forget(processId: number): void {
    this.#list = this.#list.filter((p) => p.processId !== processId);
    this.restore();
  }

  /** Drops the oldest until at most `maxBytes` wait, telling `dropped` of each; none taken. */
  trimTo(maxBytes: number, dropped: (item: Pending) => void): void {
    while (this.#bytes > maxBytes) {
      const item = this.#list.shift()!;
      this.#bytes -= item.record.bytes.length;
      dropped(item);
    }
  }

  /**
   * The key of `processId`'s oldest record here: the file's rows from it on
   * are copies of these (a commit written but not yet confirmed).
   */
  firstKey(processId: number): number | undefined {
    return this.#list.find((p) => p.processId === processId)?.key;
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
