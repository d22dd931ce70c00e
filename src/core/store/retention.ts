/**
 * The per-process cap on stored records (`maxOutputBytes`): how many bytes
 * each process holds, stored or waiting to be, what its owner still needs
 * (records a screen has not parsed yet), and what the owner learns of each
 * record dropped. Drops come at commit time and in batches: a process past
 * the cap loses its oldest records until it holds 7/8 of it.
 *
 * @module
 */
import { frameRecords, type FrameRow } from "./frames.ts";
import { type RawRecord, SOURCE_NAME } from "./records.ts";
import { type RecordStatements, SEQ_SPAN } from "./tables.ts";

/** What the owner of a process learns from retention, and what it protects from it. */
export interface RetentionHooks {
  /** Records after this `seq` are kept even past the cap (a screen has not parsed them yet). */
  keepAfter?(): number;
  /** Called for each record dropped by the cap, oldest first. */
  dropped?(record: Omit<RawRecord, "bytes">, bytes: number): void;
}

interface Usage {
  bytes: number;
  hooks: RetentionHooks;
}

/** The bytes of every process against the cap; `maxBytes` 0: no cap. */
export class Retention {
  readonly #usage = new Map<number, Usage>();
  readonly #maxBytes: number;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Registers what retention tells the owner of `processId`, and what it must keep. */
  track(processId: number, hooks: RetentionHooks): void {
    this.#usageOf(processId).hooks = hooks;
  }

  /** `bytes` more of `processId` wait to be stored. */
  added(processId: number, bytes: number): void {
    this.#usageOf(processId).bytes += bytes;
  }

  /** A waiting record of `processId` was dropped before it could be stored. */
  droppedWaiting(processId: number, record: RawRecord): void {
    const usage = this.#usageOf(processId);
    usage.bytes -= record.bytes.length;
    usage.hooks.dropped?.(record, record.bytes.length);
  }

  /** The records of `processId` were deleted. */
  emptied(processId: number): void {
    const usage = this.#usage.get(processId);
    if (usage) usage.bytes = 0;
  }

  /** `processId` is gone, with its records. */
  forget(processId: number): void {
    this.#usage.delete(processId);
  }

  /** Within a commit: trims every process past the cap. */
  trim(sql: RecordStatements): void {
    if (this.#maxBytes <= 0) return;
    for (const [processId, usage] of this.#usage) {
      if (usage.bytes > this.#maxBytes) this.#trim(sql, processId, usage);
    }
  }

  /**
   * Drops the oldest records of a process until it holds 7/8 of the cap (so
   * drops come in batches), never past what its owner still needs.
   */
  #trim(sql: RecordStatements, processId: number, usage: Usage): void {
    const base = processId * SEQ_SPAN;
    const keepAfter = usage.hooks.keepAfter?.() ?? SEQ_SPAN - 1;
    const target = this.#maxBytes - (this.#maxBytes >> 3);
    let last = -1;
    type Sized = Omit<FrameRow, "content"> & { size: number };
    for (const row of sql.sizes.iterate(base, base + keepAfter) as Iterable<Sized>) {
      if (usage.bytes <= target) break;
      const records = frameRecords(row, base);
      if (records[records.length - 1].seq > keepAfter) break;
      usage.bytes -= row.size;
      last = row.key;
      const source = SOURCE_NAME[row.source];
      for (const { seq, timestamp, start, end } of records) {
        usage.hooks.dropped?.({ seq, timestamp, source }, end - start);
      }
    }
    if (last >= 0) sql.deleteRange.run(base, last);
  }

  #usageOf(processId: number): Usage {
    let usage = this.#usage.get(processId);
    if (!usage) this.#usage.set(processId, usage = { bytes: 0, hooks: {} });
    return usage;
  }
}
