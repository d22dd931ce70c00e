/**
 * The command line as a shell's line editor drew it: the text between the
 * prompt and the start of the command's output, laid out the way a terminal
 * would lay it out (carriage returns, backspaces, cursor moves, erasing,
 * wrapping at the terminal's width), with the prompt and the continuation
 * prompts left out. It is how a command's `line` is known when the shell
 * does not send it (bash's hook sends none, to fork nothing per command): a
 * line editor redraws as it pleases (zsh prints `f`, a backspace, then
 * `false`; readline redraws a paste), and only the laid-out text is the line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EchoLine } from "./echo_line.ts";
 *
 * const echo = new EchoLine(80);
 * const bytes = (s: string) => new TextEncoder().encode(s);
 * echo.write(bytes("$ "));
 * echo.prompt(false);
 * echo.write(bytes("f\bfalse\x1b[K\r\n"));
 * assert.equal(echo.text(), "false");
 * ```
 * @module
 */

import { LineLayout, type Row } from "../output/line_layout.ts";

/** Rows kept: a line longer than this many terminal rows keeps its end. */
const MAX_ROWS = 256;

/** One command line being drawn. */
export class EchoLine {
  readonly #layout: LineLayout;
  readonly #decoder = new TextDecoder();

  constructor(cols: number) {
    this.#layout = new LineLayout(cols, MAX_ROWS);
    this.#layout.mark = true;
  }

  /** What is drawn from now on is (true) or is not (false) a prompt. */
  prompt(on: boolean): void {
    this.#layout.mark = on;
  }

  /** Draws output bytes (OSC sequences already taken out). */
  write(bytes: Uint8Array): void {
    this.#layout.write(this.#decoder.decode(bytes, { stream: true }));
  }

  /** The line as drawn: what was not prompt, rows joined (a wrapped row without a newline). */
  text(): string {
    const unmarked = (row: Row) => row.chars.filter((_, i) => !row.marked[i]).join("");
    return this.#layout.text(unmarked, false).trim();
  }
}
