/**
 * The input modes a PTY program sets, followed on raw bytes as they arrive,
 * so a step learns how to type (cursor keys, pastes) and whether a
 * full-screen program is drawing without waiting for the emulator to parse
 * the output (a round trip to its Worker, twice per step, for a shell that
 * toggles bracketed paste around every prompt). It applies what xterm.js does
 * with DECSET and DECRST (`CSI ? Pm h` / `l`) of modes 1 (cursor keys), 2004
 * (bracketed paste) and 47, 1047, 1049 (alternate buffer); for the rest that
 * may change them (RIS `ESC c`, DECSTR `CSI ! p`, XTSAVE/XTRESTORE) it says
 * "unknown", and the screen asks the emulator.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ModeTracker } from "./mode_tracker.ts";
 *
 * const tracker = new ModeTracker();
 * const bytes = (s: string) => new TextEncoder().encode(s);
 * assert.equal(tracker.scan(bytes("plain\x1b[1mbold\x1b[?25l")), "none");
 * assert.equal(tracker.scan(bytes("\x1b[?1;2004h\x1b[?104")), "known");
 * assert.equal(tracker.scan(bytes("9h")), "known"); // ?1049h, split in two
 * assert.deepEqual(tracker.modes, {
 *   applicationCursorKeys: true,
 *   bracketedPaste: true,
 *   alternateBuffer: true,
 * });
 * tracker.note(bytes("\x1bc"), 7); // a full reset: the emulator must say
 * assert.equal(tracker.exact, false);
 * tracker.synced({ applicationCursorKeys: false, bracketedPaste: false, alternateBuffer: false }, 7);
 * assert.equal(tracker.exact, true);
 * ```
 * @module
 */
import type { TerminalModes } from "./emulator.ts";
import { EscapeSequences } from "./escape_sequences.ts";

/** What a chunk did to the modes. */
export type ModeChange = "none" | "known" | "unknown";

const code = (c: string) => c.charCodeAt(0);
const isParam = (b: number) => (b >= 0x30 && b <= 0x3b);
/** The DEC private modes followed, by number, as xterm.js applies them. */
const MODES = new Map<number, keyof TerminalModes>([
  [1, "applicationCursorKeys"],
  [2004, "bracketedPaste"],
  [47, "alternateBuffer"],
  [1047, "alternateBuffer"],
  [1049, "alternateBuffer"],
]);

/** The modes of one output stream, as its DEC private mode sequences set them. */
export class ModeTracker {
  #modes: TerminalModes = {
    applicationCursorKeys: false,
    bracketedPaste: false,
    alternateBuffer: false,
  };
  readonly #sequences = new EscapeSequences();
  /** The modes are exact as of record `#syncedAt`: the emulator's, or the start. */
  #syncedAt = 0;
  /** The last record that changed the modes, and the last that did so in a way not followed. */
  #changedAt = 0;
  #unknownAt = 0;

  /** The modes after every chunk scanned (a copy). */
  get modes(): TerminalModes {
    return { ...this.#modes };
  }

  /** Whether {@link modes} is exact: no change it cannot follow since it was synced. */
  get exact(): boolean {
    return this.#unknownAt <= this.#syncedAt;
  }

  /** Scans record `seq` (see {@link scan}), noting when it changed the modes. */
  note(bytes: Uint8Array, seq: number): void {
    const change = this.scan(bytes);
    if (change !== "none") this.#changedAt = seq;
    if (change === "unknown") this.#unknownAt = seq;
  }

  /**
   * The emulator's `modes`, exact as of record `asOf`: kept unless a record
   * after it changed them (parsed or not: they are asked for again next time).
   */
  synced(modes: TerminalModes, asOf: number): void {
    if (this.#changedAt > asOf) return;
    this.#modes = { ...modes };
    this.#syncedAt = asOf;
  }

  /** Applies the mode sequences of `bytes`, which follows the chunks scanned before. */
  scan(bytes: Uint8Array): ModeChange {
    let change: ModeChange = "none";
    this.#sequences.walk(bytes, (b, at) => {
      const found = this.#sequenceAt(b, at);
      if (found === "unknown" || (found === "known" && change === "none")) change = found;
      return found !== undefined;
    });
    return change;
  }

  /** Applies the sequence at `at` (an ESC); `undefined` when the chunk ends too soon. */
  #sequenceAt(b: Uint8Array, at: number): ModeChange | undefined {
    const next = b[at + 1];
    if (next === undefined) return undefined;
    if (next === code("c")) return "unknown";
    if (next !== code("[")) return "none";
    const prefix = b[at + 2];
    if (prefix === undefined) return undefined;
    if (prefix === code("!")) {
      return b[at + 3] === undefined ? undefined : b[at + 3] === code("p") ? "unknown" : "none";
    }
    if (prefix !== code("?")) return "none";
    let end = at + 3;
    while (end < b.length && isParam(b[end])) end++;
    if (end >= b.length) return undefined;
    const final = b[end];
    if (final === code("r") || final === code("s")) return "unknown";
    if (final !== code("h") && final !== code("l")) return "none";
    const on = final === code("h");
    let change: ModeChange = "none";
    // Each `;`-separated number names a mode; its sub-parameters (after `:`) do not count.
    let param = 0;
    let sub = false;
    for (let i = at + 3; i <= end; i++) {
      if (i < end && b[i] !== code(";")) {
        if (b[i] === code(":")) sub = true;
        else if (!sub) param = param * 10 + b[i] - 0x30;
        continue;
      }
      const mode = MODES.get(param);
      param = 0;
      sub = false;
      if (mode === undefined) continue;
      this.#modes[mode] = on;
      change = "known";
    }
    return change;
  }
}
