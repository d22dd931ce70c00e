/**
 * Text laid out the way a terminal lays it out, on rows that grow as it is
 * drawn: carriage returns, backspaces, tabs, cursor moves, erasing,
 * inserting and deleting characters, and wrapping at the terminal's width.
 * What a line editor or a progress bar redraws is then the row as it
 * stands, not every state it went through. Each cell remembers whether it
 * was drawn while {@link LineLayout.mark} was on (a prompt, or what was on
 * the screen before): the readers of a layout pick the cells they want.
 *
 * Rows are relative: the first is where drawing began, and a move above it
 * stops there. Absolute positions (`CSI row;col H`) count from the first
 * one seen, which is taken to be on the row the cursor is on then.
 * Colours and modes draw nothing; OSC and other string sequences are
 * skipped whole.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LineLayout } from "./line_layout.ts";
 *
 * const layout = new LineLayout(80);
 * layout.write("10%\r50%\r\x1b[Kdone\r\n$ ");
 * assert.deepEqual(layout.rows.map((row) => row.chars.join("")), ["done", "$ "]);
 * // A wide character takes two cells: a cursor move counts them.
 * const wide = new LineLayout(80);
 * wide.write("漢字 x\x1b[2Dy");
 * assert.equal(wide.rows[0].chars.join(""), "漢字yx");
 * ```
 * @module
 */

/** One row of cells. */
export interface Row {
  chars: string[];
  /** Per cell: drawn while {@link LineLayout.mark} was on. */
  marked: boolean[];
  /** Continues the row above (the text wrapped at the right margin). */
  wrapped: boolean;
}

const newRow = (wrapped: boolean): Row => ({ chars: [], marked: [], wrapped });

/** Text being drawn on a terminal `cols` wide, keeping at most `maxRows` rows (the newest). */
export class LineLayout {
  readonly #cols: number;
  readonly #maxRows: number;
  readonly rows: Row[] = [newRow(false)];
  #row = 0;
  #col = 0;
  /** The row an absolute position's row 1 stands for, once one was seen. */
  #top: number | null = null;
  #saved = { row: 0, col: 0 };
  /** Cells drawn from now on are marked (see the module doc). */
  mark = false;
  /** An escape sequence cut off at the end of the last write. */
  #pending = "";
  /** The index in {@link rows} of the row drawing began on (negative once dropped). */
  origin = 0;

  constructor(cols: number, maxRows = Infinity) {
    this.#cols = Math.max(1, cols);
    this.#maxRows = maxRows;
  }

  /**
   * The rows as lines, a wrapped row joined to the one above: what `cells` takes of each (row
   * `r` of {@link rows}), without trailing spaces but where the next row continues it and, with
   * `keepLast`, on the last row (a prompt's space).
   */
  text(cells: (row: Row, r: number) => string, keepLast: boolean): string {
    let text = "";
    this.rows.forEach((row, r) => {
      const part = cells(row, r);
      if (r > 0 && !row.wrapped) text += "\n";
      const next = this.rows[r + 1];
      text += next?.wrapped || (keepLast && next === undefined) ? part : part.trimEnd();
    });
    return text;
  }

  /** The cursor: its row in {@link rows}, and its column. */
  get cursor(): { row: number; col: number } {
    return { row: this.#row, col: this.#col };
  }

  /** Draws `text` (decoded; an escape sequence may be split across writes). */
  write(chunk: string): void {
    const text = this.#pending + chunk;
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
        else if (text[i + 1] === "7") this.#saved = this.cursor;
        else if (text[i + 1] === "8") this.#moveTo(this.#saved.row, this.#saved.col);
        i = end;
      } else if (c === "\r") this.#col = 0;
      else if (c === "\n") this.#down(1);
      else if (c === "\b") this.#col = Math.max(0, Math.min(this.#col, this.#cols) - 1);
      else if (c === "\t") {
        this.#col = Math.min(this.#cols - 1, (Math.floor(this.#col / 8) + 1) * 8);
      } else if (c >= " " && c !== "\x7f") {
        const code = text.codePointAt(i)!;
        const char = code > 0xffff ? text.slice(i, i + 2) : c;
        i += char.length - 1;
        this.#print(char, cellsOf(code));
      }
    }
  }

  /** Draws `c`, `width` cells wide (0: it joins the character before, an accent or a joiner). */
  #print(c: string, width: number): void {
    const row0 = this.rows[this.#row];
    if (width === 0) {
      const at = Math.min(this.#col, row0.chars.length) - 1;
      if (at >= 0) row0.chars[row0.chars[at] === "" && at > 0 ? at - 1 : at] += c;
      return;
    }
    if (this.#col + width > this.#cols) {
      this.#down(1, true);
      this.#col = 0;
    }
    const row = this.rows[this.#row];
    for (let i = row.chars.length; i < this.#col; i++) {
      row.chars[i] = " ";
      row.marked[i] = this.mark;
    }
    row.chars[this.#col] = c;
    row.marked[this.#col] = this.mark;
    // A wide character's second cell holds nothing of its own.
    if (width === 2) {
      row.chars[this.#col + 1] = "";
      row.marked[this.#col + 1] = this.mark;
    }
    this.#col += width;
  }

  #down(n: number, wrapping = false): void {
    for (let k = 0; k < n; k++) {
      this.#row++;
      // A row the cursor moves down to begins a line of its own (readline wraps with a space,
      // then moves back up, and the next line's text goes there).
      if (this.#row === this.rows.length) this.rows.push(newRow(wrapping));
      else this.rows[this.#row].wrapped = wrapping;
    }
    if (this.rows.length > this.#maxRows) {
      const extra = this.rows.length - this.#maxRows;
      this.rows.splice(0, extra);
      this.#row -= extra;
      this.#saved.row = Math.max(0, this.#saved.row - extra);
      if (this.#top !== null) this.#top -= extra;
      this.origin -= extra;
    }
  }

  #moveTo(row: number, col: number): void {
    if (row < 0) {
      // An absolute position above the first row drawn: the rows it names come first.
      const above = -row;
      this.rows.unshift(...Array.from({ length: above }, () => newRow(false)));
      this.#row += above;
      this.#saved.row += above;
      this.#top! += above;
      this.origin += above;
      row = 0;
    }
    if (row > this.#row) this.#down(row - this.#row);
    else this.#row = row;
    this.#col = Math.max(0, Math.min(this.#cols - 1, col));
  }

  /** The cursor moves and erasures programs use on a line; anything else draws nothing. */
  #csi(params: string, final: string): void {
    if (params.startsWith("?") || params.startsWith(">")) return;
    const n = Math.max(1, parseInt(params, 10) || 1);
    const row = this.rows[this.#row];
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
      case "E":
      case "F":
        this.#moveTo(final === "E" ? this.#row + n : this.#row - n, 0);
        break;
      case "G":
        this.#col = Math.min(this.#cols - 1, n - 1);
        break;
      case "H":
      case "f": {
        const [r, c] = params.split(";").map((p) => Math.max(1, parseInt(p, 10) || 1));
        this.#top ??= this.#row - (r - 1);
        this.#moveTo(this.#top + r - 1, (c ?? 1) - 1);
        break;
      }
      case "d":
        this.#top ??= this.#row - (n - 1);
        this.#moveTo(this.#top + n - 1, this.#col);
        break;
      case "s":
        this.#saved = this.cursor;
        break;
      case "u":
        this.#moveTo(this.#saved.row, this.#saved.col);
        break;
      case "K": {
        const mode = parseInt(params, 10) || 0;
        if (mode === 0) this.#erase(row, col, row.chars.length);
        else if (mode === 1) this.#erase(row, 0, col + 1);
        else this.#erase(row, 0, row.chars.length);
        break;
      }
      case "J": {
        const mode = parseInt(params, 10) || 0;
        if (mode === 0) {
          this.#erase(row, col, row.chars.length);
          this.rows.length = this.#row + 1;
        } else if (mode === 2 || mode === 3) {
          // The screen is cleared: what a person sees starts again, on the cursor's row.
          for (const r of this.rows) this.#erase(r, 0, r.chars.length);
          this.rows.splice(0, this.#row);
          if (this.#top !== null) this.#top -= this.#row;
          this.origin -= this.#row;
          this.#row = 0;
        }
        break;
      }
      case "X":
        this.#erase(row, col, col + n);
        break;
      case "P":
        row.chars.splice(col, n);
        row.marked.splice(col, n);
        break;
      case "@":
        row.chars.splice(col, 0, ...Array(n).fill(" "));
        row.marked.splice(col, 0, ...Array(n).fill(this.mark));
        row.chars.length = Math.min(row.chars.length, this.#cols);
        row.marked.length = Math.min(row.marked.length, this.#cols);
        break;
    }
  }

  #erase(row: Row, from: number, to: number): void {
    if (to >= row.chars.length) {
      row.chars.length = Math.min(row.chars.length, from);
      row.marked.length = row.chars.length;
      return;
    }
    for (let i = from; i < to; i++) {
      row.chars[i] = " ";
      row.marked[i] = false;
    }
  }
}

/**
 * The cells a character takes on a terminal: 2 for East Asian wide ones and
 * emoji, 0 for combining marks, joiners and variation selectors, else 1
 * (the common ranges; a terminal's own table has more).
 */
function cellsOf(code: number): number {
  if (
    (code >= 0x300 && code <= 0x36f) || code === 0x200d || (code >= 0xfe00 && code <= 0xfe0f)
  ) return 0;
  const wide = (code >= 0x1100 && code <= 0x115f) || (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) || (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd);
  return wide ? 2 : 1;
}

/**
 * The index of the last character of the escape sequence at `i` (an ESC) of
 * `text`, or -1 when it is cut off. CSI ends at its final byte; OSC, DCS,
 * SOS, PM and APC at BEL or ST; ESC and one character (or a charset
 * designation, `ESC ( B`) otherwise.
 */
function sequenceEnd(text: string, i: number): number {
  if (i + 1 >= text.length) return -1;
  const kind = text[i + 1];
  if (kind === "[") {
    for (let j = i + 2; j < text.length; j++) {
      const code = text.charCodeAt(j);
      if (code >= 0x40 && code <= 0x7e) return j;
    }
    return -1;
  }
  if ("]PX^_".includes(kind)) {
    for (let j = i + 2; j < text.length; j++) {
      if (text[j] === "\x07") return j;
      if (text[j] === "\x1b") {
        return j + 1 < text.length ? (text[j + 1] === "\\" ? j + 1 : j - 1) : -1;
      }
    }
    return -1;
  }
  if ("()*+".includes(kind)) return i + 2 < text.length ? i + 2 : -1;
  return i + 1;
}
