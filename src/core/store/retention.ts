/**
 * The per-process cap on stored records (`maxOutputBytes`): how many bytes
 * each process holds, stored or waiting to be, what its owner still needs
 * (records a screen has not parsed yet), and what the owner learns of each
 * record dropped. Drops come at commit time and in batches: a process past
 * the cap loses its oldest records until it holds 7/8 of it. Reads skip
 * them at once; their rows are deleted by the commit, and by the next if
 * that one fails.
 *
 * @module
 */
import { frameRecords, type FrameRow } from "./frames/packing.ts";
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
  /** The last key dropped (0: none): reads start after it, its rows may still be there. */
  dropped: number;
  /** The last row key to delete with the next commit (0: none). */
  toDelete: number;
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
    if (usage) usage.bytes = usage.dropped = usage.toDelete = 0;
  }

  /** The last key of `processId` the cap dropped (0: none): reads start after it. */
  droppedThrough(processId: number): number {
    return this.#usage.get(processId)?.dropped ?? 0;
  }

  /** `processId` is gone, with its records. */
  forget(processId: number): void {
    this.#usage.delete(processId);
  }

  /**
   * Before a commit: drops the oldest stored records of every process past
   * the cap until it holds 7/8 of it (so drops come in batches), never past
   * what its owner still needs. Returns the key ranges `(from, to]` of the
   * rows the commit is to delete.
   */
  trim(sql: RecordStatements): [number, number][] {
    const deletes: [number, number][] = [];
    if (this.#maxBytes <= 0) return deletes;
    const target = this.#maxBytes - (this.#maxBytes >> 3);
    type Sized = Omit<FrameRow, "content"> & { size: number };
    for (const [processId, usage] of this.#usage) {
      const base = processId * SEQ_SPAN;
      if (usage.bytes > this.#maxBytes) {
        const keepAfter = usage.hooks.keepAfter?.() ?? SEQ_SPAN - 1;
        const from = Math.max(base, usage.dropped);
        for (const row of sql.sizes.iterate(from, base + keepAfter) as Iterable<Sized>) {
          if (usage.bytes <= target) break;
          const records = frameRecords(row, base);
          if (records[records.length - 1].seq > keepAfter) break;
          usage.bytes -= row.size;
          usage.toDelete = row.key;
          usage.dropped = row.key + row.count - 1;
          const source = SOURCE_NAME[row.source];
          for (const { seq, timestamp, start, end } of records) {
            usage.hooks.dropped?.({ seq, timestamp, source }, end - start);
          }
        }
      }
      if (usage.toDelete > 0) deletes.push([base, usage.toDelete]);
    }
    return deletes;
  }

  /** The commit that deleted `deletes` (from {@link trim}) held. */
  deleted(deletes: [number, number][]): void {
    for (const [base, last] of deletes) {
      const usage = this.#usage.get(base / SEQ_SPAN);
      if (usage?.toDelete === last) usage.toDelete = 0;
    }
  }

  #usageOf(processId: number): Usage {
    let usage = this.#usage.get(processId);
    if (!usage) {
      this.#usage.set(processId, usage = { bytes: 0, hooks: {}, dropped: 0, toDelete: 0 });
    }
    return usage;
  }
}
