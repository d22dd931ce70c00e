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
 * screen.dispose();
 * ```
 * @module
 */
import xterm from "@xterm/headless";
import { SCROLLBACK_LINES } from "../limits.ts";
import type { BufferName, ScreenRequest, ScreenSnapshot } from "./schema.ts";

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
