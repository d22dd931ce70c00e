/**
 * `process_read` by lines: the stored output of a process as numbered lines
 * (1 is the first line of the oldest record still stored, of the sources
 * asked for), searched with a pattern (every matching line counted, the
 * first ones shown with `context` lines around them, up to `max_chars`), or
 * read around one line number, so that a match's surroundings are one call
 * away. Lines are those of the text the read tools return (escape sequences
 * stripped, a terminal's CRs dropped).
 *
 * The search is fast where it can be: a literal that every match holds
 * (pattern/pattern_literal.ts) is looked for with the engine's native search,
 * and RE2 runs only on the lines that hold it; a pattern without one runs
 * RE2 on every line, each search bounded in work as `expect`'s is. Either
 * way the server's other calls are answered between slices of
 * {@link SLICE_MS}, and a search stops after {@link READ_LINES}.searchMs, saying
 * where it got to.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { linesAround, searchLines } from "./search.ts";
 * import { Pattern } from "../../pattern/pattern.ts";
 *
 * const bytes = new TextEncoder().encode("one\ntwo\nerror: three\nfour\nfive\n");
 * const records = [{ seq: 1, timestamp: 1, source: "stdout" as const, bytes }];
 * const found = await searchLines(records, {
 *   dropCR: false, pattern: Pattern.compile("^error", "pattern"), context: 1, maxChars: 1000,
 * });
 * assert.equal(found.matches, 1);
 * assert.deepEqual(found.lines.map((l) => l.line), [2, 3, 4]);
 * assert.equal(found.lines[1].match, true);
 * const around = await linesAround(records, { dropCR: false, line: 5, context: 1, maxChars: 1000 });
 * assert.deepEqual(around.lines.map((l) => l.text), ["four", "five"]);
 * ```
 * @module
 */
import { yieldTurn } from "../../../async.ts";
import { READ_LINES, REPLY_OUTPUT_BYTES } from "../../../limits.ts";
import type { RawRecord } from "../../store/records.ts";
import type { Pattern } from "../../pattern/pattern.ts";
import { type Literal, requiredLiteral } from "../../pattern/pattern_literal.ts";
import { jsonBytes, RECORD_OVERHEAD_BYTES } from "../reply_size.ts";
import { BlockLines, blocks, type ShownLine } from "./blocks.ts";

export type { ShownLine };

/** Work done between two turns of the event loop. */
const SLICE_MS = 10;
/** A line shown longer than this is cut (around its match), the cut marked with `…`. */
const SHOWN_LINE_CHARS = 1000;

/** What a search or a read around a line found. */
export interface LinesFound {
  /** In order of their numbers; a gap between two numbers separates two matches' groups. */
  lines: ShownLine[];
  /** Some lines were left out for `maxChars`. */
  truncated: boolean;
  /** The search: every matching line in scope, shown or not. */
  matches?: number;
  /** The search: the lines read, every stored one unless it stopped (`stoppedAt`). */
  totalLines?: number;
  /** The search ran out of {@link READ_LINES}.searchMs after this line: matches counts those before. */
  stoppedAt?: number;
}

/** What a search needs besides the records. */
export interface SearchRequest {
  dropCR: boolean;
  pattern: Pattern;
  /** Lines shown before and after each match. */
  context: number;
  maxChars: number;
  /** Only lines of records at or after this timestamp are matched (numbers still count all). */
  sinceTimestamp?: number;
  /** How long it may run before it stops; default {@link READ_LINES}.searchMs. */
  budgetMs?: number;
}

/** Every line of `records` matching `q.pattern`; see the module doc. */
export async function searchLines(
  records: Iterable<RawRecord>,
  q: SearchRequest,
): Promise<LinesFound> {
  const shown = new Shown(q.maxChars);
  const literal = requiredLiteral(q.pattern.source);
  const hint = literal && literalSearch(literal);
  let matches = 0;
  let lastMatch = 0;
  let last = 0;
  // The lines just before the block being searched, for the context of a match at its top.
  let before: ShownLine[] = [];
  /** Lines after a match still to show, up to this number. */
  let afterUntil = 0;
  const clock = new Clock(q.budgetMs);
  for (const block of blocks(records, q.dropCR, q.sinceTimestamp)) {
    const lines = new BlockLines(block);
    if (afterUntil >= block.first) {
      for (const line of lines.range(block.first, afterUntil)) {
        if (shown.fits([line])) shown.add({ ...line, text: cutAround(line.text, 0) });
      }
    }
    const found = (at: number) => {
      const line = lines.at(at);
      if (line.line === lastMatch) return; // The rest of a line searched in pieces.
      const hit = matchIn(q.pattern, line.text);
      if (hit === null) return;
      matches++;
      lastMatch = line.line;
      if (shown.full) return;
      const context = (l: ShownLine) => ({ ...l, text: cutAround(l.text, 0) });
      const group = [
        ...[...before, ...lines.before(at, q.context)].slice(-q.context).map(context),
        { ...line, text: cutAround(line.text, line.text.indexOf(hit)), match: true as const },
        ...lines.after(at, q.context).map(context),
      ];
      if (shown.fits(group)) {
        group.forEach((l) => shown.add(l));
        afterUntil = line.line + q.context;
      } else shown.full = true;
    };
    const stop = (line: number) => ({
      lines: shown.lines(),
      truncated: true,
      matches,
      totalLines: line,
      stoppedAt: line,
    });
    if (block.inScope) {
      // The start of the next line to test from a line's start on: one that holds the literal.
      const next = (from: number) => {
        if (!hint) return from < block.text.length ? from : -1;
        const at = hint(block.text, from);
        return at < 0 ? -1 : lines.startOf(at);
      };
      for (let at = next(0); at >= 0; at = next(lines.endOf(at) + 1)) {
        found(at);
        if (clock.due() && await clock.pause()) return stop(lines.at(at).line);
      }
    }
    last = lines.lastNumber();
    if (q.context > 0) before = [...before, ...lines.last(q.context)].slice(-q.context);
    if (clock.due() && await clock.pause()) return stop(last);
  }
  return { lines: shown.lines(), truncated: shown.full, matches, totalLines: last };
}

/** The lines `line - context` to `line + context` of `records`; `lastLine`: how far they go. */
export async function linesAround(
  records: Iterable<RawRecord>,
  q: { dropCR: boolean; line: number; context: number; maxChars: number },
): Promise<LinesFound & { lastLine: number }> {
  const shown = new Shown(q.maxChars);
  const from = Math.max(1, q.line - q.context);
  const to = q.line + q.context;
  let last = 0;
  const clock = new Clock();
  for (const block of blocks(records, q.dropCR)) {
    const lines = new BlockLines(block);
    last = lines.lastNumber();
    if (last >= from) {
      for (const line of lines.range(from, to)) {
        const one = { ...line, text: cutAround(line.text, 0) };
        if (!shown.fits([one])) {
          shown.full = true;
          break;
        }
        shown.add(one);
      }
    }
    if (last >= to || shown.full) break;
    if (clock.due()) await clock.pause(); // Reading on past searchMs is fine: it counts lines.
  }
  return { lines: shown.lines(), truncated: shown.full, lastLine: last };
}

/** The lines a reply shows, by number, within `maxChars` and the reply's bytes. */
class Shown {
  readonly #maxChars: number;
  readonly #lines = new Map<number, ShownLine>();
  #chars = 0;
  #bytes = 0;
  full = false;

  constructor(maxChars: number) {
    this.#maxChars = maxChars;
  }

  /** Whether `lines` (some perhaps shown already) fit in what is left. */
  fits(lines: ShownLine[]): boolean {
    let chars = this.#chars;
    let bytes = this.#bytes;
    for (const line of lines) {
      if (this.#lines.has(line.line)) continue;
      chars += line.text.length;
      bytes += jsonBytes(line.text) + RECORD_OVERHEAD_BYTES;
    }
    return chars <= this.#maxChars && bytes <= REPLY_OUTPUT_BYTES;
  }

  add(line: ShownLine): void {
    const known = this.#lines.get(line.line);
    if (known !== undefined) {
      if (line.match) this.#lines.set(line.line, line);
      return;
    }
    this.#lines.set(line.line, line);
    this.#chars += line.text.length;
    this.#bytes += jsonBytes(line.text) + RECORD_OVERHEAD_BYTES;
  }

  lines(): ShownLine[] {
    return [...this.#lines.values()].sort((a, b) => a.line - b.line);
  }
}

/** A search's time: slices of {@link SLICE_MS} between other calls' turns, a budget in all. */
class Clock {
  readonly #start = performance.now();
  readonly #budgetMs: number;
  #slice = this.#start;

  constructor(budgetMs: number = READ_LINES.searchMs) {
    this.#budgetMs = budgetMs;
  }

  /** Whether this slice of work has run its time. */
  due(): boolean {
    return performance.now() - this.#slice >= SLICE_MS;
  }

  /** Gives other calls their turn; true once the search has run its budget. */
  async pause(): Promise<boolean> {
    await yieldTurn();
    this.#slice = performance.now();
    return this.#slice - this.#start > this.#budgetMs;
  }
}

/** Where `literal` is next in a text from an offset on (-1: nowhere), by the engine's own search. */
function literalSearch(literal: Literal): (text: string, from: number) => number {
  if (!literal.ignoreCase) return (text, from) => text.indexOf(literal.text, from);
  const re = new RegExp(RegExp.escape(literal.text), "giu");
  return (text, from) => {
    re.lastIndex = from;
    return re.exec(text)?.index ?? -1;
  };
}

/** The text of `pattern`'s first match in `line`, searched a span at a time; null if none. */
function matchIn(pattern: Pattern, line: string): string | null {
  const overlap = Math.min(4096, Math.floor(pattern.span / 2));
  for (let from = 0;; from += pattern.span - overlap) {
    const match = pattern.find(line, from);
    if (match !== null) return match.text;
    if (from + pattern.span >= line.length) return null;
  }
}

/** `text`, or its {@link SHOWN_LINE_CHARS} around offset `at` with `…` where it is cut. */
function cutAround(text: string, at: number): string {
  if (text.length <= SHOWN_LINE_CHARS) return text;
  const start = Math.max(0, Math.min(at - 100, text.length - SHOWN_LINE_CHARS));
  const end = start + SHOWN_LINE_CHARS;
  return (start > 0 ? "…" : "") + text.slice(start, end) + (end < text.length ? "…" : "");
}
