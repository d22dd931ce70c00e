/**
 * A live view of one process for a person's page: the current screen at
 * once (from the emulator, exact as of one record), then the output bytes
 * as they come, coalesced into at most one update per {@link FRAME_MS}. A
 * flood costs the agent nothing: when more arrives in a frame than a page
 * can usefully draw ({@link FLOOD_BYTES}), or the page has not taken what
 * was sent ({@link BACKLOG_BYTES}), the bytes are no longer sent. The page
 * gets a picture of the latest output instead ({@link TAIL_BYTES} of it,
 * drawn on an empty terminal of the process's size: no wait for the
 * emulator, which may be seconds behind a flood), at most one per
 * {@link RESYNC_MS}, and the exact screen once the flood calms down.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LiveFeed, type LiveSource } from "./live_feed.ts";
 * import type { LiveEvent } from "./viewers.ts";
 *
 * let listener: (event: LiveEvent) => void = () => {};
 * const source: LiveSource = {
 *   observe: (l) => (listener = l, () => {}),
 *   liveScreen: () => Promise.resolve({ seq: 1, cols: 80, rows: 24, data: ">>> ", pty: true }),
 *   floodScreen: (tail) => ({ seq: 0, cols: 80, rows: 24, data: "", pty: true }),
 * };
 * const got: string[] = [];
 * const feed = new LiveFeed(source, {
 *   backlog: 0,
 *   screen: (s) => got.push(`screen ${s.data}`),
 *   output: (bytes) => got.push(new TextDecoder().decode(bytes)),
 *   resize: () => {},
 *   control: () => {},
 *   ended: () => got.push("end"),
 * });
 * listener({ kind: "output", seq: 1, bytes: new TextEncoder().encode(">>> ") }); // in the screen
 * listener({ kind: "output", seq: 2, bytes: new TextEncoder().encode("42") });
 * await new Promise((resolve) => setTimeout(resolve, 50));
 * listener({ kind: "end" });
 * assert.deepEqual(got, ["screen >>> ", "42", "end"]);
 * feed.close();
 * ```
 * @module
 */
import { concatBytes } from "../../bytes.ts";
import type { SerializedScreen } from "../screen/emulator.ts";
import type { Controller, LiveEvent } from "./viewers.ts";
import { OutputTail } from "./output_tail.ts";

/** At most one update per this many ms (about 60 a second). */
export const FRAME_MS = 16;
/**
 * More output than this in one frame (2 MB/s, some 25,000 lines a second) is
 * a flood: more than a person can read, and more than a browser draws cheaply.
 */
export const FLOOD_BYTES = 32 * 1024;
/** Bytes a page may leave untaken before it gets screens, not bytes. */
export const BACKLOG_BYTES = 1024 * 1024;
/** During a flood, a picture (or a try at the exact screen) at most this often. */
export const RESYNC_MS = 500;
/** A flood's picture is drawn from this much of its latest output. */
export const TAIL_BYTES = 64 * 1024;

/** The whole terminal as of record `seq`: `data` redraws it on an empty terminal. */
export interface LiveScreen extends SerializedScreen {
  seq: number;
  /** A pipe process's "screen" is the tail of its output, with bare line feeds. */
  pty: boolean;
  /** A flood's picture (its latest output, drawn on an empty terminal), not the exact screen. */
  flooding?: boolean;
}

/** What a feed follows (a process). */
export interface LiveSource {
  /** Calls `listener` with every event from now on; returns the unsubscribe. */
  observe(listener: (event: LiveEvent) => void): () => void;
  /** The current screen, exact as of its `seq`. */
  liveScreen(): Promise<LiveScreen>;
  /** A picture of a flood: the end of `tail`, its latest output, on an empty terminal of its size. */
  floodScreen(tail: OutputTail): LiveScreen;
}

/** Where a feed delivers (a page's socket). */
export interface FeedSink {
  /** Bytes handed over that the page has not taken yet. */
  readonly backlog: number;
  screen(screen: LiveScreen): void;
  output(bytes: Uint8Array): void;
  resize(cols: number, rows: number): void;
  control(holder: object | null, controlledBy: Controller): void;
  ended(): void;
}

type Pending = Extract<LiveEvent, { kind: "output" | "resize" }>;

/** One page's view of one process. */
export class LiveFeed {
  readonly #source: LiveSource;
  readonly #sink: FeedSink;
  readonly #unsubscribe: () => void;
  /** Output and resizes not delivered yet, in order. */
  #pending: Pending[] = [];
  #pendingBytes = 0;
  /** `live`: bytes flow; `flooding`: pictures of the tail; `syncing`: an exact screen is asked. */
  #mode: "live" | "flooding" | "syncing" = "syncing";
  /** A flood began while the exact screen was asked: it is out of date when it comes. */
  #stale = false;
  /** The latest output, and how much came since the last picture. */
  readonly #tail = new OutputTail(TAIL_BYTES);
  #floodBytes = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastFlush = -Infinity;
  /** When the last picture was drawn or the exact screen asked for. */
  #lastSync = -Infinity;
  #ended = false;
  #closed = false;

  constructor(source: LiveSource, sink: FeedSink) {
    this.#source = source;
    this.#sink = sink;
    // Subscribed before the screen is asked for: nothing between the two is missed.
    this.#unsubscribe = source.observe((event) => this.#event(event));
    this.#fetchScreen();
  }

  /** Stops following the process. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#unsubscribe();
  }

  #event(event: LiveEvent): void {
    if (this.#closed) return;
    if (event.kind === "control") return this.#sink.control(event.holder, event.controlledBy);
    if (event.kind === "end") {
      this.#ended = true;
      if (this.#mode === "live") this.#flush();
      return;
    }
    if (this.#mode === "flooding" || this.#stale) return this.#toTail(event);
    this.#pending.push(event);
    if (event.kind === "output") this.#pendingBytes += event.bytes.length;
    if (this.#mode === "syncing") {
      if (this.#pendingBytes > FLOOD_BYTES) this.#startFlood();
      return;
    }
    if (this.#timer === undefined) {
      const wait = Math.max(0, this.#lastFlush + FRAME_MS - performance.now());
      this.#timer = setTimeout(() => this.#flush(), wait);
    }
  }

  /** Delivers what is pending: bytes, or during a flood a picture instead. */
  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#closed) return;
    this.#lastFlush = performance.now();
    if (this.#pendingBytes > FLOOD_BYTES || this.#sink.backlog > BACKLOG_BYTES) {
      return this.#startFlood();
    }
    let run: Uint8Array[] = [];
    const send = () => {
      if (run.length > 0) this.#sink.output(concatBytes(run));
      run = [];
    };
    for (const event of this.#pending) {
      if (event.kind === "output") run.push(event.bytes);
      else {
        send();
        this.#sink.resize(event.cols, event.rows);
      }
    }
    send();
    this.#pending = [];
    this.#pendingBytes = 0;
    if (this.#ended) this.#sink.ended();
  }

  #toTail(event: Pending): void {
    if (event.kind !== "output") return; // A picture and the exact screen have the size of now.
    this.#tail.add(event.bytes);
    this.#floodBytes += event.bytes.length;
  }

  /** More comes than a page can draw: what is pending goes to the tail, pictures follow. */
  #startFlood(): void {
    for (const event of this.#pending) this.#toTail(event);
    this.#pending = [];
    this.#pendingBytes = 0;
    if (this.#mode === "syncing") this.#stale = true;
    else this.#mode = "flooding";
    if (this.#timer === undefined) this.#nextSync(0);
  }

  #nextSync(atLeastMs: number): void {
    const wait = Math.max(atLeastMs, this.#lastSync + RESYNC_MS - performance.now());
    this.#timer = setTimeout(() => this.#sync(), wait);
  }

  /** During a flood, a picture of its latest output; once it calmed down, the exact screen. */
  #sync(): void {
    this.#timer = undefined;
    if (this.#closed) return;
    // The page has not taken the last picture yet.
    if (this.#sink.backlog > BACKLOG_BYTES) return this.#nextSync(FRAME_MS);
    if (this.#floodBytes >= FLOOD_BYTES && !this.#ended) {
      this.#floodBytes = 0;
      this.#lastSync = performance.now();
      this.#sink.screen({ ...this.#source.floodScreen(this.#tail), flooding: true });
      return this.#nextSync(0);
    }
    // Syncing: a screen is on its way, out of date; its coming decides.
    if (this.#mode === "flooding") this.#fetchScreen();
  }

  async #fetchScreen(): Promise<void> {
    this.#mode = "syncing";
    this.#floodBytes = 0;
    this.#lastSync = performance.now();
    let screen;
    try {
      screen = await this.#source.liveScreen();
    } catch {
      return; // The process is gone (cleaned up): its page hears it from the list.
    }
    if (this.#closed) return;
    if (this.#stale) {
      // Output went to the tail meanwhile: pictures, or a new try once the flood is over.
      this.#stale = false;
      this.#mode = "flooding";
      if (this.#timer === undefined) this.#nextSync(0);
      return;
    }
    this.#sink.screen(screen);
    // What the screen already shows goes; a resize at its very seq may not be in it yet.
    this.#pending = this.#pending.filter((e) =>
      e.kind === "output" ? e.seq > screen.seq : e.afterSeq >= screen.seq
    );
    this.#pendingBytes = this.#pending.reduce(
      (n, e) => n + (e.kind === "output" ? e.bytes.length : 0),
      0,
    );
    this.#mode = "live";
    this.#flush();
  }
}
