/**
 * Streaming removal of ANSI escape sequences from decoded text. Programs write
 * escape sequences in arbitrary chunks, so a sequence cut in two by a chunk
 * boundary is held back until the rest arrives.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AnsiStripper } from "./ansi.ts";
 *
 * const strip = new AnsiStripper();
 * assert.equal(strip.push("\x1b[1mbold\x1b["), "bold");
 * assert.equal(strip.push("0m text"), " text");
 * ```
 * @module
 */
// Matching escape sequences means matching control characters.
// deno-lint-ignore-file no-control-regex

/**
 * Complete sequences: CSI (`ESC [ … final`), OSC (`ESC ] … BEL|ST`), DCS/SOS/PM/APC
 * (`ESC P|X|^|_ … ST`) and two-byte or charset sequences (`ESC (B`, `ESC =`, `ESC 7`).
 * The last alternative excludes the introducers of the longer forms so an unfinished
 * OSC is never mistaken for a short sequence.
 */
const COMPLETE =
  /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[ -/]*[0-OQ-WYZ\\`-~])/g;

/** An unfinished sequence at the very end of the text. */
const UNFINISHED = /^\x1b(?:\[[0-?]*[ -/]*|[\]PX^_][^\x1b]*\x1b?|[ -/]*)$/;

/** A string sequence (e.g. an OSC) that never ends is given up on past this length. */
const MAX_HELD = 4096;

/** Removes escape sequences from a stream of text chunks. */
export class AnsiStripper {
  #held = "";

  /** Returns `chunk` without escape sequences; an unfinished one at the end is held back. */
  push(chunk: string): string {
    let text = this.#held + chunk;
    this.#held = "";
    if (!text.includes("\x1b")) return text;
    text = text.replace(COMPLETE, "");
    const tail = unfinishedTail(text);
    if (tail > -1 && text.length - tail <= MAX_HELD) {
      this.#held = text.slice(tail);
      text = text.slice(0, tail);
    }
    return text;
  }

  /** Returns what is held back (called at end of stream: an unfinished sequence is dropped). */
  flush(): string {
    const held = this.#held;
    this.#held = "";
    return UNFINISHED.test(held) ? "" : held;
  }
}

/** Index where an unfinished sequence starts at the end of `text`, or -1. */
function unfinishedTail(text: string): number {
  const last = text.lastIndexOf("\x1b");
  if (last < 0) return -1;
  const unfinished = UNFINISHED.test(text.slice(last));
  // A lone ESC at the end, or one that starts nothing unfinished, may be (the first half of)
  // the ST ending an earlier OSC/DCS: that one is the unfinished sequence.
  if (!unfinished || last === text.length - 1) {
    const before = text.lastIndexOf("\x1b", last - 1);
    if (before > -1 && UNFINISHED.test(text.slice(before))) return before;
  }
  return unfinished ? last : -1;
}
