/**
 * A terminal emulator for a PTY program, so that the screen of a full-screen
 * program (vim, less, top) can be read as text. Built on `@xterm/headless`,
 * which runs in a Worker ({@link Emulator}): parsing a flood never holds the
 * server's own thread, so other calls are answered meanwhile.
 *
 * It is lazy, so that emulation never limits how fast output is taken in:
 * {@link Screen.write} only notes a chunk (the bytes stay in the record store
 * and are read back from its {@link Backlog}); parsing happens
 *
 * - at once when the program asks the terminal something (a cursor-position
 *   or device-attributes query: {@link QueryScanner}), so replies are prompt;
 * - before a snapshot, the modes or a resize, so what they see is exact;
 * - when the output pauses for {@link IDLE_MS}, so a later snapshot is quick;
 * - during a flood once it is `maxLag` bytes behind, so the store can drop
 *   parsed records at its cap (records not parsed yet are kept).
 *
 * Output goes to the Worker in slices of {@link SLICE_BYTES}, each read
 * from the store once the one before is parsed. While what waits unparsed
 * is small ({@link HELD_BYTES}), the chunks are also kept here, and a
 * catch-up reads nothing back from the store (200 chatty terminals spent a
 * third of the server's time reading their screens' backlogs from SQLite).
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
 * // Text alone leaves the modes as they were; a mode sequence, split in two, is seen.
 * screen.write(new TextEncoder().encode("more text\x1b["));
 * screen.write(new TextEncoder().encode("?1049l"));
 * assert.equal((await screen.modes()).alternateBuffer, false);
 * screen.dispose();
 * ```
 * @module
 */
import { concatBytes } from "../../bytes.ts";
import { SCROLLBACK_LINES } from "../../limits.ts";
import { Emulator, type SerializedScreen, type TerminalModes } from "./emulator.ts";
import type { ScreenRequest, ScreenSnapshot } from "../model/schema.ts";
import { ModeTracker } from "./mode_tracker.ts";
import { QueryScanner } from "./terminal_queries.ts";

export type { TerminalModes } from "./emulator.ts";

/** A chunk of program output and its record's sequence number. */
export interface Chunk {
  seq: number;
  bytes: Uint8Array;
}

/** The chunks written after `afterSeq`, oldest first, about `maxBytes` of them (the store). */
export type Backlog = (afterSeq: number, maxBytes: number) => Chunk[];

/** Output quiet for this long lets the screen catch up in the background. */
export const IDLE_MS = 30;
/** Bytes handed to the emulator at a time. */
const SLICE_BYTES = 1 << 20;
/** Unparsed output kept in memory too, per screen; past it the store is read back. */
const HELD_BYTES = 64 * 1024;
/** Default of `maxLag`. */
const MAX_LAG = 16 << 20;

/** A headless terminal emulator of a given size. */
export class Screen {
  readonly #term: Emulator;
  /** Settles once xterm has parsed everything handed to it. */
  #parsed: Promise<void> = Promise.resolve();
  readonly #backlog: Backlog | undefined;
  readonly #maxLag: number;
  /**
   * Chunks held here: all of them without a store, the ones taken from it, or
   * (with a store) the first unparsed ones while they fit in {@link HELD_BYTES}.
   */
  #held: Chunk[] = [];
  #heldBytes = 0;
  /** Writes stopped being held (too much unparsed): until the emulator has caught up. */
  #spilled = false;
  /** Highest seq handed to the emulator, and highest written. */
  #fedSeq = 0;
  #writtenSeq = 0;
  /** The last seq that held a query to the terminal, and the highest seq parsed (answered). */
  #queryAt = 0;
  #answeredSeq = 0;
  #lag = 0;
  #lastWrite = 0;
  #catchingUp: Promise<void> | undefined;
  /** Parse at least this far even while output flows (a query, a snapshot, a resize). */
  #until = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Resizes wait for the output written before them. */
  #resizes: { afterSeq: number; cols: number; rows: number }[] = [];
  readonly #queries = new QueryScanner();
  /** The modes as the output written so far sets them, exact since seq `#modesSyncedAt`. */
  readonly #modes = new ModeTracker();
  #modesSyncedAt = 0;
  /** The last seq that changed the modes, and the last that did so in a way not tracked. */
  #modeChangedAt = 0;
  #modeUnknownAt = 0;
  #disposed = false;

  /**
   * `backlog` reads back the chunks {@link write} noted (by their seq); without
   * it the screen keeps them itself. `maxLag`: bytes the emulator may fall
   * behind during a flood.
   */
  constructor(cols: number, rows: number, options: { backlog?: Backlog; maxLag?: number } = {}) {
    this.#term = new Emulator(cols, rows, SCROLLBACK_LINES);
    this.#backlog = options.backlog;
    this.#maxLag = options.maxLag ?? MAX_LAG;
  }

  /**
   * Calls `reply` with the bytes a real terminal would send back to the program
   * (answers to cursor-position and device-attribute queries).
   */
  onReply(reply: (data: string) => void): void {
    this.#term.onReply(reply);
  }

  /**
   * Notes program output: record `seq` of the store (without a backlog,
   * the next number). Parsing comes later; {@link snapshot} waits for it.
   */
  write(bytes: Uint8Array, seq = this.#writtenSeq + 1): void {
    if (this.#disposed) return;
    this.#writtenSeq = seq;
    this.#hold({ seq, bytes });
    this.#lag += bytes.length;
    this.#lastWrite = performance.now();
    const change = this.#modes.scan(bytes);
    if (change !== "none") this.#modeChangedAt = seq;
    if (change === "unknown") this.#modeUnknownAt = seq;
    if (this.#queries.asks(bytes)) {
      this.#queryAt = seq;
      this.#catchUp(seq);
    } else if (this.#lag > this.#maxLag) this.#catchUp(0);
    else this.#schedule();
  }

  /** Resizes once the output written so far is parsed at the old size. */
  resize(cols: number, rows: number): void {
    this.#resizes.push({ afterSeq: this.#writtenSeq, cols, rows });
    this.#catchUp(this.#writtenSeq);
  }

  /**
   * Whether the program asked its terminal something (cursor position, device
   * attributes) that has not been answered yet: it waits for the terminal,
   * not for its user, and the answer is on its way.
   */
  get owesReplies(): boolean {
    return !this.#disposed && this.#queryAt > this.#answeredSeq;
  }

  /**
   * The highest seq handed to the emulator (parsed or not: it holds the
   * bytes), so the store may drop records up to it.
   */
  get fedSeq(): number {
    return this.#fedSeq;
  }

  /** Copies the chunks not parsed yet out of the store, which is about to delete them. */
  takeBacklog(): void {
    if (!this.#backlog) return;
    const after = this.#held.at(-1)?.seq ?? this.#fedSeq;
    const taken = this.#backlog(after, Infinity);
    this.#held.push(...taken);
    this.#heldBytes += taken.reduce((sum, chunk) => sum + chunk.bytes.length, 0);
  }

  /**
   * Keeps a chunk written while the held ones are all that is unparsed and
   * small; else the store has it (and keeps it until it is parsed).
   */
  #hold(chunk: Chunk): void {
    if (this.#backlog && (this.#spilled || this.#heldBytes + chunk.bytes.length > HELD_BYTES)) {
      this.#spilled = true;
      return;
    }
    this.#held.push(chunk);
    this.#heldBytes += chunk.bytes.length;
  }

  /**
   * The input modes the program set with everything written so far: how keys
   * must be encoded (cursor keys in application mode send `ESC O A`, not
   * `ESC [ A`), whether a paste must be bracketed, and whether a full-screen
   * program is drawing on the alternate buffer. Followed on the bytes as they
   * arrive ({@link ModeTracker}); only after a reset is the emulator asked,
   * once it has parsed that far.
   */
  async modes(): Promise<TerminalModes> {
    if (this.#modeUnknownAt <= this.#modesSyncedAt) return this.#modes.modes;
    const asOf = this.#writtenSeq;
    await this.#settled();
    const modes = await this.#term.modes();
    // Exact as of `asOf`; a change since may or may not be parsed: ask again next time.
    if (this.#modeChangedAt <= asOf) {
      this.#modes.modes = modes;
      this.#modesSyncedAt = asOf;
    }
    return modes;
  }

  /** The screen once everything written so far has been parsed. */
  async snapshot(
    options: Pick<ScreenRequest, "buffer" | "scrollback"> = {},
  ): Promise<ScreenSnapshot> {
    await this.#settled();
    return this.#term.snapshot(options);
  }

  /**
   * The whole terminal as escape sequences that redraw it (colours, modes, the
   * alternate buffer, scrollback), exact as of `seq`: every chunk up to it and
   * none after it (a watcher's page goes on from there).
   */
  async serialize(): Promise<SerializedScreen & { seq: number }> {
    await this.#settled();
    // The Worker answers after parsing every write posted before: up to this seq.
    const seq = this.#fedSeq;
    return { ...await this.#term.serialize(), seq };
  }

  dispose(): void {
    this.#disposed = true;
    clearTimeout(this.#timer);
    this.#held = [];
    this.#heldBytes = 0;
    this.#term.dispose();
  }

  /** Everything written so far parsed (not what arrives meanwhile: a flood is not chased). */
  async #settled(): Promise<void> {
    const target = this.#writtenSeq;
    while (!this.#disposed && this.#fedSeq < target) await this.#catchUp(target);
    await this.#parsed;
    this.#applyResizes();
  }

  /** Parses in the background once the output pauses. */
  #schedule(): void {
    if (this.#timer !== undefined || this.#catchingUp) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (performance.now() - this.#lastWrite < IDLE_MS) this.#schedule();
      else this.#catchUp(0);
    }, IDLE_MS);
    Deno.unrefTimer(this.#timer);
  }

  /**
   * Feeds the emulator what it has not seen, a slice at a time, at least up
   * to `until`; past it, it stops while output flows and the lag is below
   * half of `maxLag` (and is rescheduled).
   */
  #catchUp(until: number): Promise<void> {
    this.#until = Math.max(this.#until, until);
    clearTimeout(this.#timer);
    this.#timer = undefined;
    return this.#catchingUp ??= this.#run().finally(() => {
      this.#catchingUp = undefined;
      if (this.#fedSeq < this.#writtenSeq) this.#schedule();
    });
  }

  async #run(): Promise<void> {
    while (!this.#disposed && this.#fedSeq < this.#writtenSeq) {
      const flowing = performance.now() - this.#lastWrite < IDLE_MS;
      if (this.#fedSeq >= this.#until && flowing && this.#lag <= this.#maxLag / 2) return;
      const chunks = this.#next();
      if (chunks.length === 0) {
        // Deleted before they were parsed (cannot happen while the store honours fedSeq).
        this.#fedSeq = this.#writtenSeq;
        break;
      }
      // One message per slice, cut where a resize must come between.
      let batch: Chunk[] = [];
      for (const chunk of chunks) {
        const resize = this.#resizes[0];
        if (resize && resize.afterSeq < chunk.seq) {
          this.#feed(batch);
          batch = [];
          await this.#parsed;
          this.#applyResizes();
        }
        batch.push(chunk);
      }
      this.#feed(batch);
      await this.#parsed;
    }
    this.#applyResizes();
  }

  /** The next slice of chunks not handed to the emulator yet. */
  #next(): Chunk[] {
    if (this.#held.length > 0) {
      let bytes = 0;
      let n = 0;
      while (n < this.#held.length && bytes < SLICE_BYTES) bytes += this.#held[n++].bytes.length;
      this.#heldBytes -= bytes;
      return this.#held.splice(0, n);
    }
    return this.#backlog?.(this.#fedSeq, SLICE_BYTES) ?? [];
  }

  /** Hands `chunks` to the emulator as one buffer (its own: the Worker takes it). */
  #feed(chunks: Chunk[]): void {
    if (chunks.length === 0) return;
    // A single chunk is still the store's: it is copied too.
    const bytes = chunks.length === 1
      ? chunks[0].bytes.slice()
      : concatBytes(chunks.map((chunk) => chunk.bytes));
    const seq = chunks[chunks.length - 1].seq;
    this.#fedSeq = seq;
    // Caught up: what comes next may be held again.
    if (seq >= this.#writtenSeq) this.#spilled = false;
    this.#lag = Math.max(0, this.#lag - bytes.length);
    // The emulator's replies to what it parsed came before this.
    this.#parsed = this.#term.write(bytes).then(() => {
      this.#answeredSeq = Math.max(this.#answeredSeq, seq);
    });
  }

  /** Applies the resizes whose output has been handed over (xterm resizes after parsing it). */
  #applyResizes(): void {
    while (this.#resizes.length > 0 && this.#resizes[0].afterSeq <= this.#fedSeq) {
      const { cols, rows } = this.#resizes.shift()!;
      if (!this.#disposed) this.#term.resize(cols, rows);
    }
  }
}
