/**
 * The output one wait's `expect` is matched on, and how far it has been
 * searched. It keeps the latest {@link EXPECT_WINDOW} characters and
 * searches what is new one window at a time, each window at most the
 * pattern's {@link Pattern.span} (so one search stays short, however much
 * output arrives at once), reaching back over what was already searched by
 * up to {@link EXPECT_OVERLAP} (half the span, for a complex pattern), for a
 * match that spans chunks. A window starts at a line's start where it can
 * and ends before a newline where it can, so that a line is searched whole
 * (a match at a cut is found by the next window, if it fits in the overlap).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExpectScan } from "./expect_scan.ts";
 * import { Pattern } from "../pattern/pattern.ts";
 *
 * const scan = new ExpectScan(Pattern.compile("^(\\d+) passed$", "expect"), "");
 * scan.add("running\n1");
 * assert.equal(scan.next(), null);
 * scan.add("2 passed\n");
 * assert.deepEqual(scan.next(), { text: "12 passed", groups: { "1": "12" } });
 * ```
 * @module
 */
import type { WaitMatch } from "../model/schema.ts";
import type { Pattern } from "../pattern/pattern.ts";

/** `expect` is tested on at most this much of the latest output. */
export const EXPECT_WINDOW = 64 * 1024;
/** How far each search reaches back into text already searched (matches spanning chunks). */
export const EXPECT_OVERLAP = 4096;

/** One wait's `expect`: the text it may match, searched a window at a time. */
export class ExpectScan {
  readonly #pattern: Pattern;
  #text: string;
  /** Everything before this offset of `#text` has been searched. */
  #searched = 0;

  /** `seen`: output already there that the pattern may match. */
  constructor(pattern: Pattern, seen: string) {
    this.#pattern = pattern;
    this.#text = seen;
  }

  /** Adds new output. */
  add(chunk: string): void {
    this.#text += chunk;
    if (this.#text.length > EXPECT_WINDOW) {
      const cut = this.#text.length - EXPECT_WINDOW;
      this.#text = this.#text.slice(cut);
      this.#searched = Math.max(0, this.#searched - cut);
    }
  }

  /** Whether some text has not been searched yet. */
  get pending(): boolean {
    return this.#searched < this.#text.length;
  }

  /** Searches the next window of new text: the first match there, or null. */
  next(): WaitMatch | null {
    const text = this.#text;
    if (this.#searched >= text.length) return null;
    const { span } = this.#pattern;
    let from = Math.max(0, this.#searched - Math.min(EXPECT_OVERLAP, span >> 1));
    if (from > 0) {
      const newline = text.indexOf("\n", from - 1);
      if (newline !== -1 && newline < this.#searched) from = newline + 1;
    }
    let to = Math.min(text.length, from + span);
    if (to < text.length) {
      const newline = text.lastIndexOf("\n", to);
      if (newline > this.#searched) to = newline;
    }
    this.#searched = to;
    return this.#pattern.find(text, from, to);
  }
}
