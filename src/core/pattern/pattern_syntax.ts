/**
 * What Portal reads in an `expect` or `prompt` before RE2 compiles it. The
 * JavaScript constructs a linear-time engine cannot run, backreferences and
 * lookahead, are refused by name (RE2's own message would not say what to do
 * instead, and re2js's translation turns `\k<name>` into a literal); two
 * `\u` escapes that spell one character (a surrogate pair) become that
 * character, as JavaScript reads them; and the size of the compiled program
 * is estimated, since compiling costs time in proportion to it and counted
 * repetitions multiply it (`(?:a{999}){4}` compiles to 4,000 instructions
 * from 13 characters).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readPattern } from "./pattern_syntax.ts";
 *
 * assert.equal(readPattern("^>>> $").estimate, 6);
 * assert.ok(readPattern("(?:a{999}){4}").estimate >= 4000);
 * assert.equal(readPattern("\\uD83D\\uDE00").source, "\\u{1F600}");
 * assert.throws(() => readPattern("(a)\\1"), /backreference/);
 * assert.throws(() => readPattern("a(?=b)"), /lookahead/);
 * readPattern("(?<=a)b"); // a lookbehind is fine: RE2JS runs it in linear time
 * ```
 * @module
 */

/** The source to hand to RE2 and the estimated size of its program. */
export interface PatternSyntax {
  source: string;
  estimate: number;
}

/** A pattern RE2 cannot run; the message says what to write instead. */
export class UnsupportedPattern extends Error {
  override name = "UnsupportedPattern";
}

const HEX4 = /^[0-9a-fA-F]{4}$/;
const COUNTED = /^\{(\d+)(,(\d*))?\}/;

/** Reads `source` as described in the module doc; throws {@link UnsupportedPattern}. */
export function readPattern(source: string): PatternSyntax {
  let out = "";
  // Per open group: its size so far, and the size of its last atom (what a quantifier repeats).
  const frames = [{ size: 0, last: 0 }];
  const frame = () => frames[frames.length - 1];
  const atom = (size: number) => {
    frame().size += size;
    frame().last = size;
  };
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === "\\") {
      const escape = readEscape(source, i);
      out += escape.text;
      i += escape.length;
      atom(1);
      continue;
    }
    if (c === "[") {
      const end = classEnd(source, i);
      out += source.slice(i, end);
      i = end;
      atom(1);
      continue;
    }
    if (c === "(") {
      if (source.startsWith("(?=", i) || source.startsWith("(?!", i)) {
        throw new UnsupportedPattern(
          `it uses a lookahead (${source.slice(i, i + 3)}…), which a linear-time matcher cannot ` +
            "run: match the text itself (a(?=b) becomes ab; capture the part you want with " +
            "(…) and read it from match.groups), or look behind instead with (?<=…) or (?<!…)",
        );
      }
      frames.push({ size: 0, last: 0 });
    } else if (c === ")") {
      if (frames.length > 1) {
        const inner = frames.pop()!;
        atom(inner.size + 2);
      }
    } else if (c === "|" || c === "*" || c === "+" || c === "?") {
      // An alternative, or a quantifier: one instruction, and no atom for a quantifier next.
      frame().size += 1;
      frame().last = 0;
    } else if (c === "{" && COUNTED.test(source.slice(i, i + 24))) {
      const [text, n, comma, m] = source.slice(i, i + 24).match(COUNTED)!;
      const count = comma === undefined ? Number(n) : m === "" ? Number(n) + 1 : Number(m);
      // RE2 writes x{n,m} out as m copies of x, m - n of them optional.
      frame().size += frame().last * Math.max(0, count - 1) + count;
      frame().last = 0;
      out += text;
      i += text.length;
      continue;
    } else {
      atom(1);
    }
    out += c;
    i++;
  }
  const estimate = frames.reduce((sum, f) => sum + f.size, 0);
  return { source: out, estimate };
}

/** The escape at `at` (a backslash): its length, and its text for RE2. */
function readEscape(source: string, at: number): { text: string; length: number } {
  const next = source[at + 1];
  if (next !== undefined && next >= "1" && next <= "9") throw backreference(`\\${next}`);
  if (next === "k" && source[at + 2] === "<") throw backreference("\\k<name>");
  if (next === "u" && HEX4.test(source.slice(at + 2, at + 6))) {
    const high = parseInt(source.slice(at + 2, at + 6), 16);
    const low = source.startsWith("\\u", at + 6) && HEX4.test(source.slice(at + 8, at + 12))
      ? parseInt(source.slice(at + 8, at + 12), 16)
      : -1;
    if (high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) {
      const codePoint = (high - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
      return { text: `\\u{${codePoint.toString(16).toUpperCase()}}`, length: 12 };
    }
  }
  // \x{…}, \u{…}, \p{…}, \P{…} end at their brace: its digits are no repetition count.
  const braced = "xupP".includes(next ?? "-") && source[at + 2] === "{";
  const close = braced ? source.indexOf("}", at + 3) : -1;
  const codePoint = source.codePointAt(at + 1);
  const length = close !== -1
    ? close + 1 - at
    : codePoint === undefined
    ? 1
    : codePoint > 0xffff
    ? 3
    : 2;
  return { text: source.slice(at, at + length), length };
}

/** Where the character class that opens at `at` ends (after its `]`), escapes skipped. */
function classEnd(source: string, at: number): number {
  let i = at + 1;
  if (source[i] === "^") i++;
  // JavaScript: a `]` right after `[` or `[^` closes the class ([] never matches, [^] is any).
  if (source[i] === "]") return i + 1;
  while (i < source.length && source[i] !== "]") i += source[i] === "\\" ? 2 : 1;
  return Math.min(source.length, i + 1);
}

function backreference(what: string): UnsupportedPattern {
  return new UnsupportedPattern(
    `it uses a backreference (${what}), which a linear-time matcher cannot run: write the ` +
      "repeated text out, or match both parts with (…) and compare them in match.groups",
  );
}
