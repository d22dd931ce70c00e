/**
 * Turns one output stream's raw bytes into stored text: UTF-8 (invalid bytes
 * become U+FFFD), no ANSI escape sequences, and on a terminal no bare CR.
 * Stateful, because a character or an escape sequence may be split across
 * chunks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OutputDecoder } from "./decoder.ts";
 *
 * const decoder = new OutputDecoder({ dropCR: true });
 * const bytes = new TextEncoder().encode("\x1b[1mé\r\n");
 * assert.equal(decoder.decode(bytes.subarray(0, 5)), "");
 * assert.equal(decoder.decode(bytes.subarray(5)), "é\n");
 * // A BOM after the start is a character, as a stream keeps it.
 * assert.equal(decoder.decode(new TextEncoder().encode("\ufeffx\n")), "\ufeffx\n");
 * assert.equal(decoder.decode(), "");
 * // Kept for a caller that cuts lines: every CR is a line end's, or none is kept.
 * const lines = new OutputDecoder({ dropCR: true, lineEndCR: true });
 * assert.equal(lines.decode(new TextEncoder().encode("a\r\nb\r\r\n")), "a\r\nb\r\r\n");
 * assert.equal(lines.decode(new TextEncoder().encode("50%\r99%\r\n")), "50%99%\n");
 * ```
 * @module
 */
import { AnsiStripper } from "./ansi.ts";

/** Decodes one stream; call {@link decode} without bytes at its end. */
export class OutputDecoder {
  #utf8 = new TextDecoder("utf-8", { fatal: false });
  /**
   * For a chunk that needs no stream state: Deno decodes it several times
   * faster than a stream's chunk (ASCII takes a path of its own). A BOM is
   * kept, as the stream keeps one after its start.
   */
  #whole = new TextDecoder("utf-8", { ignoreBOM: true });
  /** The chunks so far ended on a character (an ASCII byte): the stream holds nothing. */
  #clean = false;
  #ansi = new AnsiStripper();
  #dropCR: boolean;
  #lineEndCR: boolean;

  /**
   * `dropCR`: remove every `\r` (a terminal's line ends are `\r\n`).
   * `lineEndCR`: but a text whose every `\r` ends a line (`\r\n`, `\r\r\n`) keeps
   * them, for a caller that drops them from each line it cuts out
   * (lines/blocks.ts): a copy without them doubled the time of a search of
   * 200 MB (docs/decisions/2026-12-07-search-decoding.md).
   */
  constructor(options: { dropCR: boolean; lineEndCR?: boolean }) {
    this.#dropCR = options.dropCR;
    this.#lineEndCR = options.lineEndCR ?? false;
  }

  /** The text of `bytes`, minus what is held back for the next chunk; no bytes: the end. */
  decode(bytes?: Uint8Array): string {
    const text = bytes
      ? this.#ansi.push(this.#chunk(bytes))
      : this.#ansi.push(this.#utf8.decode()) + this.#ansi.flush();
    if (!this.#dropCR || !text.includes("\r")) return text;
    return this.#lineEndCR && onlyLineEndCRs(text) ? text : text.replaceAll("\r", "");
  }

  /** The UTF-8 of `bytes`, the start of a character at its end held for the next chunk. */
  #chunk(bytes: Uint8Array): string {
    if (bytes.length === 0) return "";
    const ends = bytes[bytes.length - 1] < 0x80;
    const clean = this.#clean;
    this.#clean = ends;
    // Past the first chunk (whose BOM the stream drops), between two character boundaries.
    if (clean && ends) return this.#whole.decode(bytes);
    // Deno decodes a stream's chunk 3× slower when it is a view into a larger buffer (a
    // record inside its frame) than a copy of it takes: a copy it is.
    if (bytes.byteLength !== bytes.buffer.byteLength) bytes = bytes.slice();
    return this.#utf8.decode(bytes, { stream: true });
  }
}

/**
 * Whether every `\r` of `text` is just before a `\n` or before more `\r`s
 * and a `\n` (a CR LF file through a terminal: `\r\r\n`).
 */
function onlyLineEndCRs(text: string): boolean {
  // A loop of indexOf allocates nothing; a regex test costs what the copy does.
  for (let i = text.indexOf("\r"); i >= 0; i = text.indexOf("\r", i + 1)) {
    while (text.charCodeAt(i) === 0x0d) i++;
    if (text.charCodeAt(i) !== 0x0a) return false;
  }
  return true;
}
