/**
 * The regexes of `expect` and `prompt`, run by RE2 (`npm:re2js`), whose
 * time is linear in the text: no pattern can make a search backtrack for
 * ever on the server's only thread, as `(a+)+$` does in JavaScript's engine
 * on a line of `a`s. Linear is not yet short, since a search costs up to the
 * text's length times the program's size; so every search here is given at
 * most {@link SEARCH_WORK} of that product: a pattern searches {@link
 * Pattern.span} characters at a time (windows: expect_scan.ts), and one whose
 * program is larger than {@link PATTERN_MAX_PROGRAM} is refused.
 *
 * The syntax is JavaScript's as far as RE2 can run it (pattern_syntax.ts
 * refuses the rest by name; re2js translates `\u`, `\c`, `[^]`, `(?<name>`):
 * the `m` flag always, `\d`, `\w`, `\b` ASCII as in JavaScript, classes,
 * named groups, lookbehind. Where RE2 differs: `.` also matches `\r`, and
 * `^`/`$` see only `\n` as a line end; `\s` is ASCII whitespace; RE2's own
 * `(?i)`, `\pL`, `[[:alpha:]]` work too.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Pattern } from "./pattern.ts";
 *
 * const prompt = Pattern.compile("^(?<who>\\w+)@\\w+:~\\$ $", "prompt");
 * assert.ok(prompt.matchesEnd("root@box:~$ "));
 * assert.deepEqual(prompt.find("ls\nroot@box:~$ "), {
 *   text: "root@box:~$ ",
 *   groups: { "1": "root", who: "root" },
 * });
 * // Linear: a line of 4,000 `a`s ends the search at once (JavaScript's engine never would).
 * assert.equal(Pattern.compile("(a+)+$", "expect").find("a".repeat(4000) + "b"), null);
 * assert.throws(() => Pattern.compile("(a)\\1", "expect"), /backreference/);
 * ```
 * @module
 */
import { RE2JS } from "re2js";
import { PortalError, quote } from "../../errors.ts";
import { PATTERN_MAX_PROGRAM } from "../../limits.ts";
import type { WaitMatch } from "../model/schema.ts";
import { readPattern, UnsupportedPattern } from "./pattern_syntax.ts";

/**
 * Characters × program instructions one search may cover: about 8 ms at
 * the worst measured cost of RE2JS's slowest path (~80 ns per step,
 * bench/patterns.ts), so that other calls are answered between searches.
 */
export const SEARCH_WORK = 100_000;

/** How many compiled patterns are kept, by source: an agent gives the same `expect` step after step. */
const KEPT = 64;
const kept = new Map<string, Pattern>();

/** A compiled `expect` or `prompt`. */
export class Pattern {
  readonly source: string;
  /** The most characters one search covers (at least 250). */
  readonly span: number;
  readonly #re: RE2JS;
  /** The last line `matchesEnd` was asked about, and its answer: waits ask often. */
  #lastEnd = { line: "", matches: false };

  private constructor(source: string, re: RE2JS) {
    this.source = source;
    this.#re = re;
    this.span = Math.floor(SEARCH_WORK / Math.max(1, re.programSize()));
    this.#lastEnd.matches = this.#re.test("");
  }

  /**
   * Compiles `source` (see the module doc), or throws a {@link PortalError}
   * naming `argument` that says what to write instead.
   */
  static compile(source: string, argument: string): Pattern {
    const known = kept.get(source);
    if (known !== undefined) {
      kept.delete(source); // The most recently used last.
      kept.set(source, known);
      return known;
    }
    const pattern = Pattern.#compile(source, argument);
    kept.set(source, pattern);
    if (kept.size > KEPT) kept.delete(kept.keys().next().value!);
    return pattern;
  }

  static #compile(source: string, argument: string): Pattern {
    const refuse = (reason: string) =>
      new PortalError(`${argument} ${quote(source)} cannot be used: ${reason}.`);
    let syntax;
    try {
      syntax = readPattern(source);
    } catch (error) {
      if (error instanceof UnsupportedPattern) throw refuse(error.message);
      throw error;
    }
    // Compiling takes time in proportion to the program too: a huge one is not compiled.
    if (syntax.estimate > 4 * PATTERN_MAX_PROGRAM) throw refuse(tooComplex(syntax.estimate));
    let re: RE2JS;
    try {
      re = RE2JS.compile(RE2JS.translateRegExp(syntax.source), RE2JS.MULTILINE | RE2JS.LOOKBEHINDS);
    } catch (error) {
      throw new PortalError(
        `${argument} ${quote(source)} is not a valid regular expression: ` +
          `${reasonOf((error as Error).message)}. Portal matches with RE2, in JavaScript's ` +
          "syntax less backreferences and lookahead.",
      );
    }
    if (re.programSize() > PATTERN_MAX_PROGRAM) throw refuse(tooComplex(re.programSize()));
    return new Pattern(source, re);
  }

  /**
   * The first match that lies between `from` and `to` in `text` (at most
   * {@link span} characters from `from`), or null. The characters just
   * outside are read too, so that `^`, `$`, `\b` and a lookbehind see what
   * they would see in the whole text; a match that runs on past `to` is left
   * to a search that reaches further.
   */
  find(text: string, from = 0, to = text.length): WaitMatch | null {
    to = Math.min(to, from + this.span);
    const start = from > 0 ? from - 1 : 0;
    const end = to < text.length ? to + 1 : to;
    const matcher = this.#re.matcher(text.slice(start, end));
    if (!matcher.find(from - start) || matcher.end() > to - start) return null;
    const groups: Record<string, string> = {};
    for (let i = 1; i <= matcher.groupCount(); i++) {
      const value = matcher.group(i);
      if (value !== null) groups[String(i)] = value;
    }
    for (const [name, i] of Object.entries(this.#re.namedGroups())) {
      const value = matcher.group(i);
      if (value !== null) groups[name] = value;
    }
    return { text: matcher.group()!, groups };
  }

  /** Whether the pattern matches in the end of `line` (its last {@link span} characters). */
  matchesEnd(line: string): boolean {
    if (line !== this.#lastEnd.line) {
      const matches = line.length > this.span
        ? this.find(line, line.length - this.span) !== null
        : this.#re.test(line);
      this.#lastEnd = { line, matches };
    }
    return this.#lastEnd.matches;
  }
}

function tooComplex(size: number): string {
  return `it compiles to about ${size} instructions, more than the ${PATTERN_MAX_PROGRAM} a ` +
    "pattern may have (each is matched in time proportional to its size): use fewer or " +
    "smaller counted repetitions ({n}) and alternatives, e.g. .* in place of .{0,900}";
}

/** RE2's reason without its prefix or the pattern it quotes (which carries our flags). */
function reasonOf(message: string): string {
  const reason = message.replace(/^error parsing regexp: /, "").replace(/: `\(\?m\).*`$/s, "");
  if (reason.startsWith("invalid capture in lookbehind")) {
    return "a lookbehind may not hold a capturing group: write (?:…) inside it";
  }
  return reason;
}
