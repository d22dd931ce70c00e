/**
 * A literal that every match of a pattern holds, found in its source: the
 * longest run of plain characters at its top level (no `|` there), none of
 * them made optional by a quantifier. A search over a long output looks for
 * it with the engine's native substring search first and runs RE2 only on
 * the lines that hold it: a build log of 200 MB is read at the speed of the
 * disk, not of RE2 in JavaScript. Anything it does not understand (a group,
 * a class, an escape other than an escaped punctuation mark) ends a run,
 * so the literal may be shorter than it could be, never wrong. A pattern
 * that turns case-insensitivity on anywhere (`(?i)`) gets its literal
 * matched without case, ASCII only.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requiredLiteral } from "./pattern_literal.ts";
 *
 * assert.deepEqual(requiredLiteral("^src/.*: error: (.*)$"), { text: ": error: ", ignoreCase: false });
 * assert.deepEqual(requiredLiteral("(?i)fatal\\."), { text: "fatal.", ignoreCase: true });
 * assert.equal(requiredLiteral("errors?")?.text, "error");
 * assert.equal(requiredLiteral("warn|error"), null);
 * assert.equal(requiredLiteral("\\d+"), null);
 * ```
 * @module
 */

/** What a search may look for first: `text`, without case if `ignoreCase`. */
export interface Literal {
  text: string;
  ignoreCase: boolean;
}

const META = new Set([..."\\^$.|?*+()[]{}"]);
/** Escapes that stand for their character alone (punctuation; not \d, \b, \n...). */
const PLAIN_ESCAPE = /^[!-/:-@[-`{-~]$/;

/** The longest literal every match of `source` holds (see the module doc), or null. */
export function requiredLiteral(source: string): Literal | null {
  const runs: string[] = [];
  let run = "";
  let ignoreCase = false;
  const end = () => {
    if (run !== "") runs.push(run);
    run = "";
  };
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === "|") return null;
    if (c === "\\") {
      const next = source[i + 1] ?? "";
      i += 2;
      if (PLAIN_ESCAPE.test(next)) run += next;
      else {
        // \d, \w, \b, \x41, \u{…}, \p{L}: not a literal of ours.
        end();
        continue;
      }
    } else if (c === "[" || c === "(") {
      if (source.startsWith("(?", i) && /^\(\?[a-zA-Z-]*i/.test(source.slice(i, i + 12))) {
        ignoreCase = true;
      }
      end();
      i = skipGroup(source, i);
      if (i < 0) return null;
    } else if (META.has(c)) {
      // ^ $ . and what is not a quantifier where it stands (a literal `{` in JavaScript).
      end();
      i++;
      continue;
    } else {
      run += c;
      i++;
    }
    // A quantifier repeats the atom just read: a character of the run, or the group.
    const q = source[i];
    if (
      q === "?" || q === "*" || q === "+" || (q === "{" && /^\{\d+(,\d*)?\}/.test(source.slice(i)))
    ) {
      const optional = q === "?" || q === "*" || /^\{0[,}]/.test(source.slice(i));
      if (optional) run = run.slice(0, -1);
      end();
      i = q === "{" ? source.indexOf("}", i) + 1 : i + 1;
      if (source[i] === "?") i++; // Lazy.
    }
  }
  end();
  const longest = runs.reduce((a, b) => b.length > a.length ? b : a, "");
  if (longest === "") return null;
  // Without case, only ASCII is folded the same way by RE2 and a native search.
  if (ignoreCase && [...longest].some((c) => c.charCodeAt(0) > 0x7f)) return null;
  return { text: longest, ignoreCase };
}

/** The index just past the group or class that opens at `i`; -1 if it never closes. */
function skipGroup(source: string, i: number): number {
  let depth = 0;
  let inClass = false;
  for (; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (inClass) {
      if (c === "]") inClass = false;
    } else if (c === "[") {
      inClass = true;
      // A `]` right after `[` or `[^` is a character of the class.
      if (source[i + 1] === "^") i++;
      if (source[i + 1] === "]") i++;
    } else if (c === "(") depth++;
    else if (c === ")") depth--;
    if (depth === 0 && !inClass) return i + 1;
  }
  return -1;
}
