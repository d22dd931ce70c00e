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
 * assert.equal(decoder.decode(), "");
 * ```
 * @module
 */
import { AnsiStripper } from "./ansi.ts";

/** Decodes one stream; call {@link decode} without bytes at its end. */
export class OutputDecoder {
  #utf8 = new TextDecoder("utf-8", { fatal: false });
  #ansi = new AnsiStripper();
  #dropCR: boolean;

  /** `dropCR`: remove every `\r` (a terminal's line ends are `\r\n`). */
  constructor(options: { dropCR: boolean }) {
    this.#dropCR = options.dropCR;
  }

  /** The text of `bytes`, minus what is held back for the next chunk; no bytes: the end. */
  decode(bytes?: Uint8Array): string {
    const text = bytes
      ? this.#ansi.push(this.#utf8.decode(bytes, { stream: true }))
      : this.#ansi.push(this.#utf8.decode()) + this.#ansi.flush();
    return this.#dropCR && text.includes("\r") ? text.replaceAll("\r", "") : text;
  }
}
