/**
 * One view of one process that its page reads by polling, not over a socket
 * of its own (an MCP App's page reaches Portal only through its client's tool
 * calls): a {@link LiveFeed} whose deliveries wait in a queue, each numbered,
 * until the page's next poll says it has them (its cursor). A poll with
 * nothing new waits for the next event, up to its own bound. The queue is
 * bounded as a socket's buffer is: its unread bytes are the feed's backlog,
 * past which the feed sends pictures, not bytes; and a screen replaces what
 * was queued before it (it draws the whole terminal anew).
 *
 * The view is the page as the process knows it when it takes the keyboard
 * (see viewers.ts): what it types goes to the program as the watch page's
 * keys do (watched_process.ts), secrets redacted the same way.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PolledView } from "./polled_view.ts";
 * import type { LiveEvent } from "./viewers.ts";
 *
 * let listener: (event: LiveEvent) => void = () => {};
 * const view = new PolledView({
 *   observe: (l) => (listener = l, () => {}),
 *   liveScreen: () => Promise.resolve({ seq: 1, cols: 80, rows: 24, data: ">>> ", pty: true }),
 *   floodScreen: () => ({ seq: 0, cols: 80, rows: 24, data: "", pty: true }),
 * });
 * const first = await view.poll(0, 1000);
 * assert.equal(first.events[0].type, "screen");
 * listener({ kind: "output", seq: 2, bytes: new TextEncoder().encode("42") });
 * const next = await view.poll(first.cursor, 1000);
 * assert.deepEqual(next.events, [{ type: "output", data: btoa("42") }]);
 * view.close();
 * ```
 * @module
 */
import { withTimeout } from "../../async.ts";
import type { Controller } from "./viewers.ts";
import { type FeedSink, LiveFeed, type LiveScreen, type LiveSource } from "./live_feed.ts";

/** What a poll returns: the screen, output (base64 bytes), resizes, who holds the keyboard, the end. */
export type ViewEvent =
  | ({ type: "screen" } & LiveScreen)
  | { type: "output"; data: string }
  | { type: "resize"; cols: number; rows: number }
  | { type: "control"; controlled_by: Controller; mine: boolean }
  | { type: "end" };

/** At most this much of the queue (bytes of output and screens) goes in one poll's reply. */
export const POLL_REPLY_BYTES = 256 * 1024;

interface Queued {
  n: number;
  event: ViewEvent;
  bytes: number;
}

/** A process's live view, read by polls with a cursor. */
export class PolledView {
  readonly #source: LiveSource;
  #feed: LiveFeed | undefined;
  #queue: Queued[] = [];
  #queuedBytes = 0;
  /** The number of the last event queued (cursors count from it). */
  #last = 0;
  #wake = new Set<() => void>();
  #closed = false;

  constructor(source: LiveSource) {
    this.#source = source;
    this.restart();
  }

  /** Starts over: what is queued goes, and the next poll begins with the current screen. */
  restart(): void {
    this.#feed?.close();
    this.#queue = [];
    this.#queuedBytes = 0;
    const queued = () => this.#queuedBytes;
    const sink: FeedSink = {
      get backlog() {
        return queued();
      },
      screen: (screen) => this.#push({ type: "screen", ...screen }, screen.data.length, true),
      output: (bytes) => this.#push({ type: "output", data: bytes.toBase64() }, bytes.length),
      resize: (cols, rows) => this.#push({ type: "resize", cols, rows }, 0),
      control: (holder, controlledBy) =>
        this.#push({ type: "control", controlled_by: controlledBy, mine: holder === this }, 0),
      ended: () => this.#push({ type: "end" }, 0),
    };
    this.#feed = new LiveFeed(this.#source, sink);
  }

  /**
   * The events after `cursor` (those up to it the page has: they go), waiting
   * up to `waitMs` for one if there are none; and the cursor to ask from next.
   */
  async poll(cursor: number, waitMs: number): Promise<{ cursor: number; events: ViewEvent[] }> {
    this.#ack(cursor);
    if (this.#queue.length === 0 && !this.#closed && waitMs > 0) {
      let wake = () => {};
      const woken = new Promise<void>((resolve) => this.#wake.add(wake = resolve));
      await withTimeout(woken, waitMs, undefined);
      this.#wake.delete(wake);
    }
    const events: ViewEvent[] = [];
    let bytes = 0;
    let last = Math.max(cursor, this.#queue.length > 0 ? this.#queue[0].n - 1 : this.#last);
    for (const queued of this.#queue) {
      if (events.length > 0 && bytes + queued.bytes > POLL_REPLY_BYTES) break;
      events.push(queued.event);
      bytes += queued.bytes;
      last = queued.n;
    }
    return { cursor: last, events };
  }

  /** Stops following the process; a waiting poll returns at once. */
  close(): void {
    this.#closed = true;
    this.#feed?.close();
    this.#queue = [];
    this.#queuedBytes = 0;
    this.#wakeAll();
  }

  #ack(cursor: number): void {
    while (this.#queue.length > 0 && this.#queue[0].n <= cursor) {
      this.#queuedBytes -= this.#queue.shift()!.bytes;
    }
  }

  #push(event: ViewEvent, bytes: number, replaces = false): void {
    if (this.#closed) return;
    // A screen draws the whole terminal: the output and screens before it are not needed.
    if (replaces) {
      this.#queue = this.#queue.filter((q) => q.event.type === "control" || q.event.type === "end");
      this.#queuedBytes = 0;
    }
    this.#queue.push({ n: ++this.#last, event, bytes });
    this.#queuedBytes += bytes;
    this.#wakeAll();
  }

  #wakeAll(): void {
    for (const wake of this.#wake) wake();
    this.#wake.clear();
  }
}
