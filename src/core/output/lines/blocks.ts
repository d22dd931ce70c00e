/**
 * A process's stored text as numbered lines, in blocks (for lines/search.ts):
 * each block whole lines, numbered on from the block before (line 1 is the
 * first line of the first record given), but a piece of a line longer than
 * {@link LINE_MAX}, numbered as its line. The bytes of one source in a row
 * are decoded {@link BLOCK_CHARS} at a time, and the text cut where it lies
 * (a slice of it is not a copy); a terminal's `\r\n` stays in it, and
 * {@link BlockLines}, which finds a block's lines by offset, drops the `\r`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BlockLines, blocks } from "./blocks.ts";
 *
 * const bytes = new TextEncoder().encode("one\r\ntwo\r\n");
 * const [block] = [...blocks([{ seq: 1, timestamp: 1, source: "stdout", bytes }], true)];
 * assert.deepEqual([block.text, block.first, block.count], ["one\r\ntwo\r\n", 1, 2]);
 * assert.deepEqual(new BlockLines(block).last(1), [{ line: 2, text: "two" }]);
 * ```
 * @module
 */
import type { Source } from "../../model/schema.ts";
import type { RawRecord } from "../../store/records.ts";
import { OutputDecoder } from "../../text/decoder.ts";

/** One numbered line; `match` on a line a pattern matched (a search's reply). */
export interface ShownLine {
  line: number;
  text: string;
  match?: true;
}

/**
 * Bytes decoded at once (records are copied side by side up to this many),
 * and the most small texts joined into one block. A text this long is one
 * of V8's large objects, allocated outside the young generation: decoded
 * 64 KiB at a time, 200 MB of text cost a host (1 MiB semi-spaces,
 * src/limits.ts) ~250 scavenges a search, decoded 256 KiB at a time ~30
 * (docs/decisions/2026-12-07-search-decoding.md). Deno decodes 1 MiB 3×
 * slower per byte than 64 KiB, 256 KiB as fast.
 */
const BLOCK_CHARS = 256 * 1024;
/** A text at least this long is cut into blocks where it lies (joining it to others copies it). */
const IN_PLACE_CHARS = 16 * 1024;
/** A line longer than this is searched in pieces of this size (a match across a cut is missed). */
const LINE_MAX = 64 * 1024;

/** A block of text: whole lines, but a last piece of a line longer than {@link LINE_MAX}. */
export interface Block {
  text: string;
  /** The number of its first line. */
  first: number;
  /** Its last line goes on in the next block (it does not end with a newline). */
  open: boolean;
  /** Its lines are in the search's time window. */
  inScope: boolean;
  /** How many lines (or pieces of one) it holds. */
  count: number;
  /**
   * The `\r`s just before one of its newlines are not part of their line: a
   * terminal's line end the decoder kept (OutputDecoder's `lineEndCR`); it
   * has no other `\r`.
   */
  crlf: boolean;
}

/** The lines of one block, found by offset (the start of a line) as they are asked for. */
export class BlockLines {
  readonly #block: Block;
  /** Line numbers counted up to an offset, to find the number of the next one asked. */
  #countedTo = 0;
  #countedLine: number;

  constructor(block: Block) {
    this.#block = block;
    this.#countedLine = block.first;
  }

  /** The start of the line that holds offset `at`. */
  startOf(at: number): number {
    return lineStart(this.#block.text, at);
  }

  /** The offset of the newline that ends the line starting at `at` (or the text's end). */
  endOf(at: number): number {
    const end = this.#block.text.indexOf("\n", at);
    return end < 0 ? this.#block.text.length : end;
  }

  /** The line starting at `at`: offsets only grow between calls (a search goes forward). */
  at(at: number): ShownLine {
    const text = this.#block.text;
    for (
      let i = text.indexOf("\n", this.#countedTo);
      i >= 0 && i < at;
      i = text.indexOf("\n", i + 1)
    ) {
      this.#countedLine++;
      this.#countedTo = i + 1;
    }
    return { line: this.#countedLine, text: this.#text(at, this.endOf(at)) };
  }

  /** Up to `n` lines before the one starting at `at`, oldest first. */
  before(at: number, n: number): ShownLine[] {
    return this.#back(at - 1, this.at(at).line - 1, n);
  }

  /** Up to `n` lines after the one starting at `at` (the last may be a piece). */
  after(at: number, n: number): ShownLine[] {
    return this.#forth(this.endOf(at) + 1, this.at(at).line + 1, n);
  }

  /** Its lines numbered `from` to `to`. */
  range(from: number, to: number): ShownLine[] {
    let at = 0;
    let number = this.#block.first;
    for (; number < from && at < this.#block.text.length; number++) at = this.endOf(at) + 1;
    return this.#forth(at, number, to - number + 1);
  }

  /** Its last `n` whole lines (none for a piece of a line). */
  last(n: number): ShownLine[] {
    if (this.#block.open) return [];
    const text = this.#block.text;
    return this.#back(text.endsWith("\n") ? text.length - 1 : text.length, this.lastNumber(), n);
  }

  /** The number of its last line (or piece of one). */
  lastNumber(): number {
    return this.#block.first + this.#block.count - 1;
  }

  /** The line from `start` to `end` (exclusive), without the CRs of a terminal's line end. */
  #text(start: number, end: number): string {
    const text = this.#block.text;
    while (this.#block.crlf && end > start && text.charCodeAt(end - 1) === 0x0d) end--;
    return text.slice(start, end);
  }

  /** Up to `n` lines back from the one ending at offset `end` (exclusive), numbered `number`. */
  #back(end: number, number: number, n: number): ShownLine[] {
    const out: ShownLine[] = [];
    const text = this.#block.text;
    for (; out.length < n && end >= 0 && number >= this.#block.first; number--) {
      const start = lineStart(text, end);
      out.unshift({ line: number, text: this.#text(start, end) });
      end = start - 1;
    }
    return out;
  }

  /** Up to `n` lines from offset `at` on, the first numbered `number`. */
  #forth(at: number, number: number, n: number): ShownLine[] {
    const out: ShownLine[] = [];
    const text = this.#block.text;
    for (; out.length < n && at < text.length; number++) {
      const end = this.endOf(at);
      out.push({ line: number, text: this.#text(at, end) });
      at = end + 1;
    }
    return out;
  }
}

/** The start of the line that holds offset `at` of `text`. */
function lineStart(text: string, at: number): number {
  return at <= 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1;
}

const NEWLINES = /\n/g;

/** `text` without its CRs. */
const withoutCR = (text: string) => text.replaceAll("\r", "");

/** Lines in `text`: newlines, and a last line without one. */
function countLines(text: string): number {
  // The regex engine counts them twice as fast as a loop of indexOf (one call per line).
  const n = text.match(NEWLINES)?.length ?? 0;
  return text === "" || text.endsWith("\n") ? n : n + 1;
}

/**
 * The stored text of `records` in blocks of whole lines; see {@link Block}.
 * Records of one source in a row are decoded together (a decode per record
 * would cost more than the search); a text of {@link IN_PLACE_CHARS} or more
 * is cut where it lies (a slice of it is not a copy), only its first line
 * joined to what came before.
 */
export function* blocks(
  records: Iterable<RawRecord>,
  dropCR: boolean,
  sinceTimestamp = -Infinity,
): Generator<Block> {
  const decoders: Partial<Record<Source, OutputDecoder>> = {};
  const utf8 = new TextDecoder();
  const decode = (source: Source, bytes: Uint8Array) =>
    source === "stdin"
      ? utf8.decode(bytes, { stream: true })
      : (decoders[source] ??= new OutputDecoder({ dropCR, lineEndCR: true })).decode(bytes);
  /** Bytes of `source` not yet decoded: the first `used` of `joined`. */
  const joined = new Uint8Array(BLOCK_CHARS);
  let used = 0;
  let source: Source = "stdout";
  /** Text not yet in a block: the start of a line not yet ended, then small texts. */
  let parts: string[] = [];
  let size = 0;
  /**
   * The text waiting holds a CR of stdin's own (kept on a terminal): a block
   * of it drops its terminal line ends' CRs rather than let a line lose its own.
   */
  let ownCR = false;
  let first = 1;
  let inScope = false;
  const block = (text: string): Block => {
    const count = countLines(text);
    first += count;
    return { text, first: first - count, open: false, inScope, count, crlf: dropCR && !ownCR };
  };
  /** `rest` (the start of a line) waits alone. */
  const wait = (rest: string) => {
    parts = rest === "" ? [] : [rest];
    size = rest.length;
    ownCR &&= rest.includes("\r");
  };
  /** What waits, as blocks: its whole lines (all of it if `closing`), then any long line's pieces. */
  const flush = function* (closing: boolean): Generator<Block> {
    const text = parts.join("");
    const end = closing ? text.length : text.lastIndexOf("\n") + 1;
    if (end > 0) yield block(text.slice(0, end));
    let rest = text.slice(end);
    // A piece of a line is numbered as the line: the next block goes on with the same number.
    for (; rest.length > LINE_MAX; rest = rest.slice(LINE_MAX)) {
      yield { text: rest.slice(0, LINE_MAX), first, open: true, inScope, count: 1, crlf: false };
    }
    wait(rest);
  };
  /** Decoded text, to blocks: a small one waits to be joined, a large one is cut in place. */
  const take = function* (text: string): Generator<Block> {
    const own = dropCR && source === "stdin" && text.includes("\r");
    if (own && !ownCR) parts = parts.map(withoutCR);
    if (own) ownCR = true;
    else if (ownCR) text = withoutCR(text);
    const firstEnd = text.length < IN_PLACE_CHARS ? -1 : text.indexOf("\n");
    if (firstEnd < 0) {
      parts.push(text);
      size += text.length;
      if (size >= BLOCK_CHARS) yield* flush(false);
      return;
    }
    parts.push(text.slice(0, firstEnd + 1));
    yield* flush(false);
    ownCR = own;
    const lastEnd = text.lastIndexOf("\n");
    if (lastEnd > firstEnd) yield block(text.slice(firstEnd + 1, lastEnd + 1));
    wait(text.slice(lastEnd + 1));
  };
  /**
   * Decodes the joined bytes: all, or (`lines`) up to their last newline, the
   * rest kept (a cut inside a character would cost the decoder a copy).
   */
  const decodeJoined = function* (lines = false): Generator<Block> {
    const end = lines ? joined.lastIndexOf(0x0a, used - 1) + 1 || used : used;
    if (end === 0) return;
    const text = decode(source, joined.subarray(0, end));
    joined.copyWithin(0, end, used);
    used -= end;
    yield* take(text);
  };
  for (const record of records) {
    const scoped = record.timestamp >= sinceTimestamp;
    if (scoped !== inScope || record.source !== source) {
      yield* decodeJoined();
      if (scoped !== inScope && size > 0) yield* flush(false);
      [inScope, source] = [scoped, record.source];
    }
    for (let at = 0; at < record.bytes.length;) {
      if (used === BLOCK_CHARS) yield* decodeJoined(true);
      const piece = record.bytes.subarray(at, at + BLOCK_CHARS - used);
      joined.set(piece, used);
      used += piece.length;
      at += piece.length;
    }
  }
  yield* decodeJoined();
  yield* flush(true);
}
