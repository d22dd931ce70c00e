/**
 * What the host sends one attached terminal: the screen as it stands, then
 * the program's output as it comes, with never more than
 * {@link ATTACH_BACKLOG_BYTES} of it unsent. A terminal that stops reading
 * (Ctrl+S, a stalled ssh) while its program floods is not queued for: past
 * the bound its output is skipped (it is in the records), and once the
 * terminal has taken what was sent it gets the screen as it stands then,
 * and the output after it, as at attach. A pipe process has no screen: its
 * picture is its latest output (the watch page's tail).
 *
 * @module
 */
import type { ManagedProcess } from "../../core/process/managed_process.ts";
import { ATTACH_BACKLOG_BYTES } from "../../limits.ts";
import { connWriter } from "../hello.ts";
import { encodeFrame } from "./frames.ts";

/** The output frames of one terminal, bounded; see the module doc. */
export class TerminalFeed {
  readonly #process: ManagedProcess;
  readonly #write: (bytes: Uint8Array) => Promise<void>;
  readonly #unsubscribe: () => void;
  /** Bytes handed to the connection that it has not taken yet. */
  #unsent = 0;
  /** Resolves once the connection has taken (or dropped) everything handed to it so far. */
  #written: Promise<void> = Promise.resolve();
  /**
   * `live`: output goes as it comes; `picture`: a screen is being taken, the
   * output meanwhile held for after it; `behind`: output is skipped until a
   * picture replaces it.
   */
  #mode: "live" | "picture" | "behind" = "picture";
  #held: { bytes: Uint8Array; seq: number }[] = [];
  #heldBytes = 0;
  /** The picture under way (the first, or a catch-up), if any. */
  #showing: Promise<void> | undefined;
  #closed = false;

  constructor(conn: Deno.Conn, process: ManagedProcess) {
    this.#process = process;
    this.#write = connWriter(conn);
    // Subscribed before the first picture is taken: nothing between the two is missed.
    this.#unsubscribe = process.watched.observe((event) => {
      if (event.kind === "output") this.#output(event.bytes, event.seq);
    });
    this.#showing = this.#show();
  }

  /** Resolves once the first picture is sent. */
  async started(): Promise<void> {
    await this.#showing;
  }

  /** After the program's end: a catch-up due first, then `end` (how it ended), taken. */
  async end(how: string): Promise<void> {
    while (this.#showing) await this.#showing;
    this.#send(encodeFrame("end", how));
    await this.#written;
  }

  /** Stops following the program (the terminal detached). */
  close(): void {
    this.#closed = true;
    this.#unsubscribe();
  }

  #output(bytes: Uint8Array, seq: number): void {
    if (this.#mode === "behind") return;
    if (this.#mode === "picture") {
      if (this.#heldBytes + bytes.length <= ATTACH_BACKLOG_BYTES) {
        this.#held.push({ bytes, seq });
        this.#heldBytes += bytes.length;
      } else this.#skip();
      return;
    }
    // One chunk always goes to a terminal that has taken everything (a pipe's may be 1 MiB).
    if (this.#unsent > 0 && this.#unsent + bytes.length > ATTACH_BACKLOG_BYTES) {
      this.#skip();
      this.#showing = this.#written.then(() => this.#show());
      return;
    }
    this.#send(encodeFrame("output", bytes));
  }

  /** More came than the terminal took: skipped, until a picture. */
  #skip(): void {
    this.#mode = "behind";
    this.#held = [];
    this.#heldBytes = 0;
  }

  /**
   * A picture of the program now, then what came after it; when more came
   * meanwhile than is held, the next picture once the terminal took this one.
   */
  async #show(): Promise<void> {
    while (!this.#closed) {
      this.#mode = "picture";
      // A process cleaned up meanwhile has no screen to show; its end frame says why.
      const { seq, frames } = await picture(this.#process).catch(() => ({
        seq: Infinity,
        frames: [encodeFrame("screen", "null")],
      }));
      if (this.#closed) break;
      for (const frame of frames) this.#send(frame);
      if (this.#mode === "picture") {
        for (const { bytes, seq: at } of this.#held) {
          if (at > seq) this.#send(encodeFrame("output", bytes));
        }
        this.#held = [];
        this.#heldBytes = 0;
        this.#mode = "live";
        break;
      }
      await this.#written;
    }
    this.#showing = undefined;
  }

  #send(frame: Uint8Array): void {
    this.#unsent += frame.length;
    this.#written = this.#write(frame).then(() => {
      this.#unsent -= frame.length;
    });
  }
}

/**
 * The program as it stands, as frames, and the seq of the last record they
 * show: a terminal's screen as text to draw (JSON: attach.ts draws it), or
 * for a pipe no screen (`null`) and its latest output.
 */
async function picture(process: ManagedProcess): Promise<{ seq: number; frames: Uint8Array[] }> {
  if (!process.hasScreen) {
    const { seq, data } = await process.watched.liveScreen();
    const tail = data === "" ? [] : [encodeFrame("output", data)];
    return { seq, frames: [encodeFrame("screen", "null"), ...tail] };
  }
  const seq = process.outputSeq;
  return { seq, frames: [encodeFrame("screen", JSON.stringify(await process.screen({})))] };
}
