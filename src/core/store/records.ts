/**
 * What the store holds: a record is one chunk of a program's output, or one
 * write to its input, exactly as it was (raw bytes); reads select records
 * ({@link RecordQuery}) and hand them out as text. Sources are stored as
 * small numbers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SOURCE_CODE, SOURCE_NAME } from "./records.ts";
 *
 * assert.equal(SOURCE_NAME[SOURCE_CODE.stderr], "stderr");
 * ```
 * @module
 */
import type { Encoding, ProcessDetails, Source } from "../model/schema.ts";
import type { TerminalSize } from "./processes_table.ts";

/** A source as the records table stores it, and back. */
export const SOURCE_CODE: Record<Source, number> = { stdin: 0, stdout: 1, stderr: 2 };
export const SOURCE_NAME: Source[] = ["stdin", "stdout", "stderr"];

/** One chunk of output, or one write to stdin, exactly as it was. */
export interface RawRecord {
  /** Position within its process, starting at 1; strictly increasing. */
  seq: number;
  /** Nanoseconds since the process started (monotonic, growing with `seq`). */
  timestamp: number;
  source: Source;
  bytes: Uint8Array;
}

/** A record as the read tools see it: its text. */
export interface IoRecord {
  seq: number;
  timestamp: number;
  source: Source;
  content: string;
}

/** Records a read returns. */
export interface Page {
  records: IoRecord[];
  /** Nothing that matched was left out (for `maxChars`). */
  complete: boolean;
}

/** What a query found. */
export interface QueryResult extends Page {
  /**
   * Reading oldest first: the last record examined and consumed (returned, or
   * empty once decoded, e.g. escape sequences only): a cursor may move to it.
   */
  lastSeq?: number;
}

/** Selection of records for a query. */
export interface RecordQuery {
  sources: Source[];
  /** Only records with `seq` greater than this, per source. */
  afterSeq?: Partial<Record<Source, number>>;
  /** Only records at or after this timestamp. */
  sinceTimestamp?: number;
  /** Stop collecting once this many characters of content were collected. */
  maxChars?: number;
  /** Spend `maxChars` on the newest records rather than the oldest. */
  newest?: boolean;
  /** The output came through a terminal: its CRs are dropped. */
  dropCR?: boolean;
  /** `base64`: the bytes as stored, not text (see record_decoder.ts). */
  encoding?: Encoding;
}

/** What a recording is made of: the process, its terminal's sizes and its records. */
export interface Recording {
  process: Pick<
    ProcessDetails,
    "id" | "command" | "args" | "status" | "exit_code" | "exit_signal" | "started_at" | "ended_at"
  >;
  /** Oldest first; the first is the size at the start. */
  sizes: TerminalSize[];
  /** Oldest first. */
  records: Iterable<RawRecord>;
}
