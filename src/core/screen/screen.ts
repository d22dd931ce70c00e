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
 * Output goes to the Worker in slices of {@link SLICE_BYTES}, read from the
 * store once the one before is parsed, unless held in memory ({@link HeldChunks}).
 *
 * An emulator with a full scrollback costs about 2 MB, so only the most
 * recently used ones stay built ({@link LiveScreens}). A screen whose whole
 * output is still in the store and short ({@link REPLAY_BYTES}) may be
 * parked: its emulator is dropped, and rebuilt when needed by replaying every
 * record at the sizes the terminal had, the answers to old questions dropped.
 * xterm is deterministic, so the rebuilt screen is the live one. While parked,
 * nothing is parsed in the background, and the store keeps every record.
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
import { REPLAY_BYTES, SCROLLBACK_LINES } from "../../limits.ts";
import { Emulator, screenGone, type SerializedScreen, type TerminalModes } from "./emulator.ts";
import type { ScreenRequest, ScreenSnapshot } from "../model/schema.ts";
import type { RecordStore } from "../store/record_store.ts";
import { ModeTracker } from "./mode_tracker.ts";
import { QueryScanner } from "./terminal_queries.ts";
import { type LiveScreens, liveScreens, type Parkable } from "./live_screens.ts";
import { SizeHistory } from "./size_history.ts";
import { type Chunk, HeldChunks } from "./held_chunks.ts";
import { ParkedView } from "./parked_view.ts";

export type { TerminalModes } from "./emulator.ts";
export type { Chunk } from "./held_chunks.ts";

/** The chunks written after `afterSeq`, oldest first, about `maxBytes` of them (the store). */
export type Backlog = (afterSeq: number, maxBytes: number) => Chunk[];

/** Which buffer a snapshot shows, and how much scrollback. */
type SnapshotOptions = Pick<ScreenRequest, "buffer" | "scrollback">;

/** Options of a {@link Screen}. */
export interface ScreenOptions {
  /** Reads back the chunks {@link Screen.write} noted, by seq; without it the screen keeps them. */
  backlog?: Backlog;
  /** Bytes the emulator may fall behind during a flood. */
  maxLag?: number;
  /** Which emulators stay built (default: the server's {@link liveScreens}). */
  live?: LiveScreens;
}

/** Output quiet for this long lets the screen catch up in the background. */
export const IDLE_MS = 30;
/** Bytes handed to the emulator at a time. */
const SLICE_BYTES = 1 << 20;
/** Unparsed output kept in memory too, per screen; past it the store is read back. */
const HELD_BYTES = 64 * 1024;
/** Default of `maxLag`. */
const MAX_LAG = 16 << 20;

/** A headless terminal emulator of a given size. */
export class Screen implements Parkable {
  /** Undefined while parked. */
  #term: Emulator | undefined;
  #onReply: (data: string) => void = () => {};
  /** Settles once xterm has parsed everything handed to it. */
  #parsed: Promise<void> = Promise.resolve();
  readonly #backlog: Backlog | undefined;
  readonly #maxLag: number;
  readonly #live: LiveScreens;
  /** Unparsed chunks kept here too (see held_chunks.ts). */
  readonly #held: HeldChunks;
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
  /** Every size the terminal had, and how many of them the emulator has. */
  readonly #sizes: SizeHistory;
  /** Bytes written or replayed (an empty write may stand for stored records); fed since built. */
  #historyBytes = 0;
  #fedBytes = 0;
  /** Whether the store still has all of them. */
  #historyKept = true;
  /** Calls that need the emulator built until they return (it is not parked meanwhile). */
  #using = 0;
  /** Parked: the screen as it was then. */
  readonly #parkedView = new ParkedView();
  readonly #queries = new QueryScanner();
  /** The modes as the output written so far sets them. */
  readonly #modes = new ModeTracker();
  #disposed = false;

  /** A screen of `cols` × `rows`, its emulator built (the most recently used one). */
  constructor(cols: number, rows: number, options: ScreenOptions = {}) {
    this.#sizes = new SizeHistory(cols, rows);
    this.#backlog = options.backlog;
    this.#maxLag = options.maxLag ?? MAX_LAG;
    this.#live = options.live ?? liveScreens;
    this.#held = new HeldChunks(this.#backlog ? HELD_BYTES : Infinity);
    this.#build();
  }

  /**
   * Calls `reply` with the bytes a real terminal would send back to the program
   * (answers to cursor-position and device-attribute queries).
   */
  onReply(reply: (data: string) => void): void {
    this.#onReply = reply;
    this.#term?.onReply(reply);
  }

  /**
   * Notes program output: record `seq` of the store (without a backlog,
   * the next number). Parsing comes later; {@link snapshot} waits for it.
   */
  write(bytes: Uint8Array, seq = this.#writtenSeq + 1): void {
    if (this.#disposed) return;
    this.#writtenSeq = seq;
    this.#historyBytes += bytes.length;
    this.#held.offer({ seq, bytes });
    this.#lag += bytes.length;
    this.#lastWrite = performance.now();
    this.#modes.note(bytes, seq);
    if (this.#queries.asks(bytes)) {
      this.#queryAt = seq;
      this.#catchUp(seq);
    } else if (this.#lag > this.#maxLag) this.#catchUp(0);
    else this.#schedule();
  }

  /** Resizes once the output written so far is parsed at the old size. */
  resize(cols: number, rows: number): void {
    this.#sizes.add(this.#writtenSeq, cols, rows);
    // Parked, the size waits for the replay.
    if (this.#term) this.#catchUp(this.#writtenSeq);
  }

  /**
   * Whether the program asked its terminal something (cursor position, device
   * attributes) that has not been answered yet: it waits for the terminal,
   * not for its user, and the answer is on its way.
   */
  get owesReplies(): boolean {
    return !this.#disposed && this.#queryAt > this.#answeredSeq;
  }

  /** Highest seq handed to the emulator (0 while parked): the store may drop records up to it. */
  get fedSeq(): number {
    return this.#fedSeq;
  }

  /** The modes as the output's own sequences set them; undefined after one not followed. */
  get trackedModes(): TerminalModes | undefined {
    return this.#modes.exact ? this.#modes.modes : undefined;
  }

  /** Whether the emulator is built now (not parked). */
  get built(): boolean {
    return this.#term !== undefined;
  }

  /** Whether it can be rebuilt from the store: every record kept, short enough to replay. */
  get parkable(): boolean {
    return this.#backlog !== undefined && this.#historyKept && !this.#disposed &&
      this.#historyBytes <= Math.min(REPLAY_BYTES, this.#maxLag / 2);
  }

  /**
   * Drops the emulator, unless it is in use: a later need replays the records.
   * Its last screen stays, to answer a plain snapshot until something changes it.
   */
  park(): boolean {
    const term = this.#term;
    if (!term || !this.parkable || this.#catchingUp || this.#using > 0) return false;
    this.#parkedView.keep(term, { seq: this.#fedSeq, sizes: this.#sizes.count });
    this.#term = undefined;
    this.#fedSeq = 0;
    this.#lag = this.#historyBytes;
    this.#held.drop();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    return true;
  }

  /** Records the store's cap dropped: what is left cannot rebuild the screen. */
  historyDropped(): void {
    this.#historyKept = false;
  }

  /** Copies the chunks not parsed yet out of the store, which is about to delete them. */
  takeBacklog(): void {
    if (!this.#backlog) return;
    this.#historyKept = false;
    this.#held.add(this.#backlog(this.#held.lastSeq ?? this.#fedSeq, Infinity));
    // Parked, the copy is the whole output: into an emulator with it, not kept as bytes.
    if (!this.#term) this.#catchUp(this.#writtenSeq);
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
    if (this.#modes.exact) return this.#modes.modes;
    const asOf = this.#writtenSeq;
    const modes = await this.#withEmulator((term) => term.modes());
    this.#modes.synced(modes, asOf);
    return modes;
  }

  /** The screen once everything written so far has been parsed. */
  async snapshot(options: SnapshotOptions = {}): Promise<ScreenSnapshot> {
    const now = { seq: this.#writtenSeq, sizes: this.#sizes.count };
    const parked = this.#term ? undefined : await this.#parkedView.answer(options, now);
    return parked ?? this.#withEmulator((term) => term.snapshot(options));
  }

  /**
   * The whole terminal as escape sequences that redraw it (colours, modes, the
   * alternate buffer, scrollback), exact as of `seq`: every chunk up to it and
   * none after it (a watcher's page goes on from there).
   */
  serialize(): Promise<SerializedScreen & { seq: number }> {
    return this.#withEmulator(async (term) => {
      // The Worker answers after parsing every write posted before: up to this seq.
      const seq = this.#fedSeq;
      return { ...await term.serialize(), seq };
    });
  }

  dispose(): void {
    this.#disposed = true;
    clearTimeout(this.#timer);
    this.#held.drop();
    this.#term?.dispose();
    this.#term = undefined;
    this.#live.forget(this);
  }

  /** `ask` of the emulator once everything written so far is parsed (built for it if parked). */
  async #withEmulator<T>(ask: (term: Emulator) => Promise<T>): Promise<T> {
    this.#using++;
    try {
      const target = this.#writtenSeq;
      // Everything written so far (not what arrives meanwhile: a flood is not chased).
      while (!this.#disposed && (!this.#term || this.#fedSeq < target)) {
        await this.#catchUp(target);
      }
      await this.#parsed;
      this.#applySizes();
      if (!this.#term) throw screenGone();
      this.#live.used(this);
      return await ask(this.#term);
    } finally {
      this.#using--;
    }
  }

  /** Parses in the background once the output pauses (parked: only when needed). */
  #schedule(): void {
    if (this.#timer !== undefined || this.#catchingUp || !this.#term) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (performance.now() - this.#lastWrite < IDLE_MS) this.#schedule();
      else this.#catchUp(0);
    }, IDLE_MS);
    Deno.unrefTimer(this.#timer);
  }

  /**
   * Feeds the emulator a slice at a time up to `until`, then on, unless output
   * flows and the lag is under half of `maxLag` (then it is rescheduled).
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
    if (this.#disposed) return;
    if (this.#term) this.#live.used(this);
    else this.#build();
    while (!this.#disposed && this.#fedSeq < this.#writtenSeq) {
      const flowing = performance.now() - this.#lastWrite < IDLE_MS;
      if (this.#fedSeq >= this.#until && flowing && this.#lag <= this.#maxLag / 2) return;
      const chunks = this.#next();
      if (chunks.length === 0) {
        // Deleted before they were parsed (cannot happen while the store honours fedSeq).
        this.#fedSeq = this.#writtenSeq;
        break;
      }
      // One message per slice, cut where a resize must come between, and after the
      // last chunk whose questions were answered already (replayed quietly).
      let batch: Chunk[] = [];
      for (const chunk of chunks) {
        const quietEnds = batch.length > 0 && batch[batch.length - 1].seq <= this.#answeredSeq &&
          chunk.seq > this.#answeredSeq;
        if (this.#sizes.dueBefore(chunk.seq) || quietEnds) {
          this.#feed(batch);
          batch = [];
          await this.#parsed;
          this.#applySizes();
        }
        batch.push(chunk);
      }
      this.#feed(batch);
      await this.#parsed;
    }
    this.#applySizes();
  }

  /** A new emulator at the terminal's first size; the records replay into it from the start. */
  #build(): void {
    this.#parkedView.forget();
    const { cols, rows } = this.#sizes.restart();
    this.#fedBytes = 0;
    this.#term = new Emulator(cols, rows, SCROLLBACK_LINES);
    this.#term.onReply(this.#onReply);
    // Others are parked after: the Worker stops with the last emulator.
    this.#live.used(this);
  }

  /** The next slice of chunks not handed to the emulator yet. */
  #next(): Chunk[] {
    const held = this.#held.take(SLICE_BYTES);
    return held.length > 0 ? held : this.#backlog?.(this.#fedSeq, SLICE_BYTES) ?? [];
  }

  /** Hands `chunks` to the emulator as one buffer (its own: the Worker takes it). */
  #feed(chunks: Chunk[]): void {
    if (chunks.length === 0 || !this.#term) return;
    // A single chunk is still the store's: it is copied too.
    const bytes = chunks.length === 1
      ? chunks[0].bytes.slice()
      : concatBytes(chunks.map((chunk) => chunk.bytes));
    const seq = chunks[chunks.length - 1].seq;
    this.#fedSeq = seq;
    // Caught up: what comes next may be held again.
    if (seq >= this.#writtenSeq) this.#held.caughtUp();
    this.#lag = Math.max(0, this.#lag - bytes.length);
    this.#fedBytes += bytes.length;
    this.#historyBytes = Math.max(this.#historyBytes, this.#fedBytes);
    // The emulator's replies to what it parsed came before this; a replay's were given already.
    this.#parsed = this.#term.write(bytes, seq <= this.#answeredSeq).then(() => {
      this.#answeredSeq = Math.max(this.#answeredSeq, seq);
    });
  }

  /** Applies the sizes whose output has been handed over (xterm resizes after parsing it). */
  #applySizes(): void {
    if (!this.#term) return;
    for (const { cols, rows } of this.#sizes.due(this.#fedSeq)) this.#term.resize(cols, rows);
  }
}

/**
 * The screen of PTY process `id`, tied to its records: its backlog read from
 * `store`, which keeps what it has not parsed (at most a quarter of the
 * per-process cap behind); a real terminal's answers to the program's
 * queries go back through `answer`.
 */
export function processScreen(
  id: number,
  size: { cols: number; rows: number },
  store: RecordStore,
  answer: (bytes: Uint8Array) => void,
): Screen {
  const cap = store.maxOutputBytes;
  const screen = new Screen(size.cols, size.rows, {
    backlog: (afterSeq, maxBytes) => store.raw(id, afterSeq, maxBytes),
    maxLag: cap > 0 ? Math.ceil(cap / 4) : Infinity,
  });
  screen.onReply((data) => answer(new TextEncoder().encode(data)));
  return screen;
}
