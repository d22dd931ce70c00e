/**
 * One terminal emulator in the Worker that runs them all
 * (emulator_worker.ts), as the server's thread sees it: a write resolves
 * once it is parsed, a snapshot or the modes are asked for and answered.
 * The Worker starts with the first emulator and stops with the last, so a
 * server with no PTY runs no thread, and nothing keeps it from exiting.
 * A quiet write is parsed without answering the program: an emulator rebuilt
 * from the records replays questions that were answered long ago.
 *
 * @module
 */
import type {
  EmulatorEvent,
  EmulatorRequest,
  SerializedScreen,
  TerminalModes,
} from "./emulator_worker.ts";
import type { ScreenRequest, ScreenSnapshot } from "../model/schema.ts";
import { PortalError } from "../../errors.ts";

export type { SerializedScreen, TerminalModes } from "./emulator_worker.ts";

let worker: Worker | null = null;
const live = new Map<number, Emulator>();
let nextId = 1;

function send(request: EmulatorRequest, transfer: Transferable[] = []): void {
  worker?.postMessage(request, transfer);
}

function start(): Worker {
  const started = new Worker(new URL("./emulator_worker.ts", import.meta.url), { type: "module" });
  started.onmessage = ({ data }: MessageEvent<EmulatorEvent>) => live.get(data.id)?.receive(data);
  started.onerror = (event) => {
    event.preventDefault();
    started.terminate();
    if (worker === started) worker = null;
    for (const emulator of [...live.values()]) emulator.fail(event.message);
  };
  return started;
}

/** What a call that raced a cleanup or the shutdown is told, rather than waiting without end. */
export const screenGone = () =>
  new PortalError(
    "The screen is gone: the process was cleaned up (or the server is shutting down) " +
      "while this call waited. Call process_list to see the processes that remain.",
    "not_found",
  );

type Answer = { resolve: (value: never) => void; reject: (error: Error) => void };

/** A headless xterm of the given size, in the emulator Worker. */
export class Emulator {
  readonly #id = nextId++;
  /** The writes not parsed yet, oldest first: their resolvers, and whether replies are kept. */
  #writes: { parsed: () => void; quiet: boolean }[] = [];
  readonly #answers = new Map<number, Answer>();
  #asked = 0;
  #onReply: (data: string) => void = () => {};
  /** Why nothing more will be answered, once disposed or failed. */
  #gone: Error | null = null;

  constructor(cols: number, rows: number, scrollback: number) {
    worker ??= start();
    live.set(this.#id, this);
    send({ op: "open", id: this.#id, cols, rows, scrollback });
  }

  /**
   * Hands `bytes` (given up: its buffer moves to the Worker) over; resolves
   * once parsed. `quiet`: what the terminal would answer to them is dropped.
   */
  write(bytes: Uint8Array, quiet = false): Promise<void> {
    if (!live.has(this.#id)) return Promise.resolve();
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    const own = whole && bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice();
    send({ op: "write", id: this.#id, bytes: own }, [own.buffer as ArrayBuffer]);
    return new Promise((parsed) => this.#writes.push({ parsed, quiet }));
  }

  resize(cols: number, rows: number): void {
    send({ op: "resize", id: this.#id, cols, rows });
  }

  /** The screen as xterm has it now (after the writes already parsed). */
  snapshot(options: Pick<ScreenRequest, "buffer" | "scrollback">): Promise<ScreenSnapshot> {
    return this.#ask((ask) => send({ op: "snapshot", id: this.#id, ask, options }));
  }

  modes(): Promise<TerminalModes> {
    return this.#ask((ask) => send({ op: "modes", id: this.#id, ask }));
  }

  /** The terminal as escape sequences, once every write handed over so far is parsed. */
  serialize(): Promise<SerializedScreen> {
    return this.#ask((ask) => send({ op: "serialize", id: this.#id, ask }));
  }

  /** Calls `reply` with what a real terminal would answer the program (query replies). */
  onReply(reply: (data: string) => void): void {
    this.#onReply = reply;
  }

  dispose(): void {
    if (!live.delete(this.#id)) return;
    send({ op: "close", id: this.#id });
    // A call that raced a cleanup or the shutdown gets an answer, not a wait without end.
    this.#settle(screenGone());
    if (live.size === 0) {
      worker?.terminate();
      worker = null;
    }
  }

  /** An event from the Worker for this emulator. */
  receive(event: EmulatorEvent): void {
    if (event.op === "parsed") this.#writes.shift()?.parsed();
    // The Worker answers while it parses the oldest write not parsed yet.
    else if (event.op === "reply") {
      if (!this.#writes[0]?.quiet) this.#onReply(event.data);
    } else {
      this.#answers.get(event.ask)?.resolve(event.value as never);
      this.#answers.delete(event.ask);
    }
  }

  /** The Worker died: nothing more will be parsed or answered. */
  fail(message: string): void {
    live.delete(this.#id);
    this.#settle(new Error(`The terminal emulator failed: ${message}`));
  }

  #ask<T>(send: (ask: number) => void): Promise<T> {
    if (this.#gone !== null) return Promise.reject(this.#gone);
    const ask = ++this.#asked;
    return new Promise<T>((resolve, reject) => {
      this.#answers.set(ask, { resolve: resolve as (value: never) => void, reject });
      send(ask);
    });
  }

  /** Every wait ends, and every later question fails with `why`: writes count as parsed. */
  #settle(why: Error): void {
    this.#gone = why;
    for (const { parsed } of this.#writes.splice(0)) parsed();
    for (const { reject } of this.#answers.values()) reject(why);
    this.#answers.clear();
  }
}
