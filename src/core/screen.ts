/**
 * A terminal emulator fed with every byte a PTY program writes, so that the
 * screen of a full-screen program (vim, less, top) can be read as text.
 * Built on `@xterm/headless`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Screen } from "./screen.ts";
 *
 * const screen = new Screen(80, 24);
 * screen.write(new TextEncoder().encode("hello\r\n\x1b[1mworld"));
 * assert.deepEqual((await screen.snapshot()).lines, ["hello", "world"]);
 * screen.write(new TextEncoder().encode("\x1b[?1h\x1b[?1049h"));
 * assert.deepEqual(await screen.modes(), {
 *   applicationCursorKeys: true,
 *   bracketedPaste: false,
 *   alternateBuffer: true,
 * });
 * screen.dispose();
 * ```
 * @module
 */
import xterm from "@xterm/headless";
import { SCROLLBACK_LINES } from "../limits.ts";
import type { BufferName, ScreenRequest, ScreenSnapshot } from "./schema.ts";

/** Input modes a program sets on its terminal (see {@link Screen.modes}). */
export interface TerminalModes {
  /** DECCKM (`CSI ? 1 h`): arrows, Home and End send `ESC O x`. */
  applicationCursorKeys: boolean;
  /** `CSI ? 2004 h`: pasted text is wanted between `ESC [ 200 ~` and `ESC [ 201 ~`. */
  bracketedPaste: boolean;
  /** The alternate buffer is active (vim, less, htop). */
  alternateBuffer: boolean;
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

  /**
   * The input modes the program set, once everything written so far has been
   * parsed: how keys must be encoded (cursor keys in application mode send
   * `ESC O A`, not `ESC [ A`), whether a paste must be bracketed, and whether
   * a full-screen program is drawing on the alternate buffer.
   */
  async modes(): Promise<TerminalModes> {
    await this.#parsed;
    const modes = this.#term.modes;
    return {
      applicationCursorKeys: modes.applicationCursorKeysMode,
      bracketedPaste: modes.bracketedPasteMode,
      alternateBuffer: this.#term.buffer.active.type === "alternate",
    };
  }

  /** The screen once everything written so far has been parsed. */
  async snapshot(
    options: Pick<ScreenRequest, "buffer" | "scrollback"> = {},
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
