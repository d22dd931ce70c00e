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

/** Rows kept: a line longer than this many terminal rows keeps its end. */
const MAX_ROWS = 256;

interface Row {
  chars: string[];
  /** Per cell: drawn as part of a prompt. */
  prompt: boolean[];
  /** Continues the row above (the text wrapped at the right margin). */
  wrapped: boolean;
}

const newRow = (wrapped: boolean): Row => ({ chars: [], prompt: [], wrapped });

/** One command line being drawn. */
export class EchoLine {
  readonly #cols: number;
  #rows: Row[] = [newRow(false)];
  #row = 0;
  #col = 0;
  #inPrompt = true;
  readonly #decoder = new TextDecoder();
  /** An escape sequence cut off at the end of the last write. */
  #pending = "";

  constructor(cols: number) {
    this.#cols = Math.max(1, cols);
  }

  /** What is drawn from now on is (true) or is not (false) a prompt. */
  prompt(on: boolean): void {
    this.#inPrompt = on;
  }

  /** Draws output bytes (OSC sequences already taken out). */
  write(bytes: Uint8Array): void {
    const text = this.#pending + this.#decoder.decode(bytes, { stream: true });
    this.#pending = "";
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === "\x1b") {
        const end = sequenceEnd(text, i);
        if (end < 0) {
          this.#pending = text.slice(i);
          return;
        }
        if (text[i + 1] === "[") this.#csi(text.slice(i + 2, end), text[end]);
        i = end;
      } else if (c === "\r") this.#col = 0;
      else if (c === "\n") this.#down(1);
      else if (c === "\b") this.#col = Math.max(0, Math.min(this.#col, this.#cols) - 1);
      else if (c === "\t") {
        this.#col = Math.min(this.#cols - 1, (Math.floor(this.#col / 8) + 1) * 8);
      } else if (c >= " " && c !== "\x7f") this.#print(c);
    }
  }

  /** The line as drawn: what was not prompt, rows joined (a wrapped row without a newline). */
  text(): string {
    let text = "";
    this.#rows.forEach((row, r) => {
      if (r > 0 && !row.wrapped) text += "\n";
      let part = "";
      for (let i = 0; i < row.chars.length; i++) {
        if (!row.prompt[i]) part += row.chars[i] ?? " ";
      }
      const next = this.#rows[r + 1];
      text += next?.wrapped ? part : part.trimEnd();
    });
    return text.trim();
  }

  #print(c: string): void {
    if (this.#col >= this.#cols) {
      this.#down(1, true);
      this.#col = 0;
    }
    const row = this.#rows[this.#row];
    row.chars[this.#col] = c;
    row.prompt[this.#col] = this.#inPrompt;
    this.#col++;
  }

  #down(n: number, wrapping = false): void {
    for (let k = 0; k < n; k++) {
      this.#row++;
      if (this.#row === this.#rows.length) this.#rows.push(newRow(wrapping));
      else if (wrapping) this.#rows[this.#row].wrapped = true;
    }
    if (this.#rows.length > MAX_ROWS) {
      const extra = this.#rows.length - MAX_ROWS;
      this.#rows.splice(0, extra);
      this.#row -= extra;
    }
  }

  /** The cursor moves and erasures a line editor uses; anything else (colours) draws nothing. */
  #csi(params: string, final: string): void {
    const n = Math.max(1, parseInt(params, 10) || 1);
    const row = this.#rows[this.#row];
    const col = Math.min(this.#col, this.#cols);
    switch (final) {
      case "A":
        this.#row = Math.max(0, this.#row - n);
        break;
      case "B":
        this.#down(n);
        break;
      case "C":
        this.#col = Math.min(this.#cols - 1, col + n);
        break;
      case "D":
        this.#col = Math.max(0, col - n);
        break;
      case "G":
        this.#col = Math.min(this.#cols - 1, n - 1);
        break;
      case "K": {
        const mode = parseInt(params, 10) || 0;
        if (mode === 0) this.#erase(row, col, row.chars.length);
        else if (mode === 1) this.#erase(row, 0, col + 1);
        else this.#erase(row, 0, row.chars.length);
        break;
      }
      case "J":
        if ((parseInt(params, 10) || 0) === 0) {
          this.#erase(row, col, row.chars.length);
          this.#rows.length = this.#row + 1;
        }
        break;
      case "X":
        this.#erase(row, col, col + n);
        break;
      case "P":
        row.chars.splice(col, n);
        row.prompt.splice(col, n);
        break;
      case "@":
        row.chars.splice(col, 0, ...Array(n).fill(" "));
        row.prompt.splice(col, 0, ...Array(n).fill(this.#inPrompt));
        row.chars.length = Math.min(row.chars.length, this.#cols);
        row.prompt.length = Math.min(row.prompt.length, this.#cols);
        break;
    }
  }

  #erase(row: Row, from: number, to: number): void {
    if (to >= row.chars.length) {
      row.chars.length = Math.min(row.chars.length, from);
      row.prompt.length = row.chars.length;
      return;
    }
    for (let i = from; i < to; i++) {
      row.chars[i] = " ";
      row.prompt[i] = false;
    }
  }
}

/**
 * The index of the last character of the escape sequence at `i` (an ESC) of
 * `text`, or -1 when it is cut off. CSI ends at its final byte; ESC and one
 * character (or a charset designation, `ESC ( B`) otherwise.
 */
function sequenceEnd(text: string, i: number): number {
  if (i + 1 >= text.length) return -1;
  if (text[i + 1] === "[") {
    for (let j = i + 2; j < text.length; j++) {
      const code = text.charCodeAt(j);
      if (code >= 0x40 && code <= 0x7e) return j;
    }
    return -1;
  }
  if ("()*+".includes(text[i + 1])) return i + 2 < text.length ? i + 2 : -1;
  return i + 1;
}
