/**
 * A terminal emulator fed with every byte a PTY program writes, so that the
 * screen of a full-screen program (vim, less, top) can be read as text.
 * Built on `@xterm/headless`.
 *
 * @example
 * ```ts
 * const screen = new Screen(80, 24);
 * screen.write(new TextEncoder().encode("hello\r\n"));
 * (await screen.snapshot()).lines; // ["hello"]
 * ```
 * @module
 */
import xterm from "@xterm/headless";

/** Lines kept above the primary screen. */
const SCROLLBACK_LINES = 5000;

export type BufferName = "primary" | "alternate";

/** What is on the screen, compactly: trailing blanks and blank rows at the bottom are left out. */
export interface ScreenSnapshot {
  /** The buffer these lines come from. */
  buffer: BufferName;
  /** The buffer the program is drawing on now (full-screen programs use `alternate`). */
  active_buffer: BufferName;
  cols: number;
  rows: number;
  /** Cursor position, 0-based, relative to the top of the screen. */
  cursor: { row: number; col: number };
  /** Window title the program set (OSC 0/2), or null. */
  title: string | null;
  /** Screen rows from the top; blank rows after the last non-blank one are omitted. */
  lines: string[];
  /** Only when asked for: up to that many lines just above the screen, oldest first. */
  scrollback?: string[];
}

/** A headless terminal emulator of a given size. */
export class Screen {
  #term: xterm.Terminal;
  #title: string | null = null;
  #parsed: Promise<void> = Promise.resolve();

  constructor(cols: number, rows: number) {
    this.#term = new xterm.Terminal({
      cols,
      rows,
      scrollback: SCROLLBACK_LINES,
      allowProposedApi: true,
    });
    this.#term.onTitleChange((title) => this.#title = title || null);
  }

  /**
   * Calls `reply` with the bytes a real terminal would send back to the program
   * (answers to cursor-position and device-attribute queries).
   */
  onReply(reply: (data: string) => void): void {
    this.#term.onData(reply);
  }

  /** Feeds program output; parsing is asynchronous, {@link snapshot} waits for it. */
  write(bytes: Uint8Array): void {
    this.#parsed = new Promise((resolve) => this.#term.write(bytes, resolve));
  }

  resize(cols: number, rows: number): void {
    this.#term.resize(cols, rows);
  }

  /** The screen once everything written so far has been parsed. */
  async snapshot(
    options: { buffer?: BufferName; scrollback?: number } = {},
  ): Promise<ScreenSnapshot> {
    await this.#parsed;
    const term = this.#term;
    const active: BufferName = term.buffer.active.type === "alternate" ? "alternate" : "primary";
    const name = options.buffer ?? active;
    const buffer = name === "alternate" ? term.buffer.alternate : term.buffer.normal;
    const top = buffer.baseY;
    const lines = readLines(buffer, top, top + term.rows);
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    const snapshot: ScreenSnapshot = {
      buffer: name,
      active_buffer: active,
      cols: term.cols,
      rows: term.rows,
      cursor: { row: buffer.cursorY, col: buffer.cursorX },
      title: this.#title,
      lines,
    };
    if (options.scrollback) {
      snapshot.scrollback = readLines(buffer, Math.max(0, top - options.scrollback), top);
    }
    return snapshot;
  }

  dispose(): void {
    this.#term.dispose();
  }
}

function readLines(buffer: xterm.IBuffer, from: number, to: number): string[] {
  const lines: string[] = [];
  for (let y = from; y < to; y++) {
    lines.push(buffer.getLine(y)?.translateToString(true).trimEnd() ?? "");
  }
  return lines;
}
