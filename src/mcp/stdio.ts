/**
 * MCP over stdio (or a host's client socket): one JSON-RPC message per
 * line, as the SDK's own transport reads them, but never more than
 * {@link REQUEST_MAX_BYTES} of one line. A
 * longer line is skipped as it streams in (only its first and last few KiB
 * are kept: bounded_lines.ts), answered with a JSON-RPC error when its id is found in them, and
 * noted on stderr; the next line is read as usual. The SDK's transport threw
 * on such a line and closed itself with stdin paused: the request got no
 * reply, later ones neither, and the end of stdin (which stops the server)
 * was never seen.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requestId } from "./stdio.ts";
 *
 * assert.equal(requestId('{"method":"tools/call","params":{"id":3}', '"id":3}},"jsonrpc":"2.0","id":7}'), 7);
 * assert.equal(requestId('{"jsonrpc":"2.0","id":"a","method":"x","params":{', '"id":3}}}'), "a");
 * ```
 * @module
 */
import process from "node:process";
import {
  deserializeMessage,
  type JSONRPCMessage,
  ProtocolErrorCode,
  serializeMessage,
  type Transport,
} from "@modelcontextprotocol/server";
import { yieldTurn } from "../async.ts";
import { BoundedLines, type SkippedLine } from "../bounded_lines.ts";
import {
  CONTENT_MAX_CHARS,
  REPLY_BACKLOG_BYTES,
  REPLY_BACKLOG_MAX_BYTES,
  REQUEST_MAX_BYTES,
} from "../limits.ts";
import { envelopeError } from "./envelope.ts";

const encoder = new TextEncoder();

/**
 * Where a {@link LineTransport} reads and writes: stdin and stdout
 * ({@link stdioPort}), or a host's client socket.
 */
export interface BytePort {
  /**
   * Starts handing what arrives to `onData`; returns how to stop. When
   * `onData` returns a promise, nothing more is read until it settles.
   */
  listen(
    onData: (chunk: Uint8Array) => Promise<void> | undefined,
    onError: (error: Error) => void,
  ): () => void;
  /** Sends `bytes`; resolves once they are taken (or can never be). */
  write(bytes: Uint8Array): Promise<void>;
}

/** stdin and stdout. stdin keeps flowing once the transport stops: its end is what stops the server. */
export function stdioPort(): BytePort {
  return {
    listen(onData, onError) {
      const data = (chunk: Uint8Array) => {
        const wait = onData(chunk);
        if (!wait) return;
        process.stdin.pause();
        wait.finally(() => process.stdin.resume());
      };
      process.stdin.on("data", data);
      process.stdin.on("error", onError);
      return () => {
        process.stdin.off("data", data);
        process.stdin.off("error", onError);
      };
    },
    // Resolved once stdout has taken the bytes, or failed to (the client has gone).
    write: (bytes) => new Promise((resolve) => process.stdout.write(bytes, () => resolve())),
  };
}

/**
 * An MCP server transport of one JSON-RPC message per line over `port`;
 * `note` takes what goes to stderr. Replies a client has not read are
 * bounded: past {@link REPLY_BACKLOG_BYTES} unsent the client's messages
 * are no longer taken (nor read: its writes then block), so it cannot make
 * the server queue more; only what it asked before is answered, and
 * progress and log notifications are dropped. Several messages that came at
 * once are taken one a turn of the event loop, so that each one's reply is
 * counted before the next is taken. Past {@link REPLY_BACKLOG_MAX_BYTES}
 * (replies to requests taken before, which came at once) the client is
 * taken for gone: nothing more is sent, and `overflow` ends its connection.
 * It follows the requests it received and the replies it sent, so that its
 * end can wait for what was asked.
 */
export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #port: BytePort;
  readonly #note: (message: string) => void;
  readonly #lines: BoundedLines;
  readonly #onOverflow: () => void;
  #stop: (() => void) | undefined;
  /** Lines read and not yet taken, in order. */
  #queue: string[] = [];
  /** Bytes handed to the port that it has not taken yet. */
  #unsent = 0;
  /** Resolved once the unsent bytes are back under the backlog bound (reading goes on). */
  #room: (() => void)[] = [];
  /** Taking lines one a turn, while this is set. */
  #taking: Promise<void> | undefined;
  #paused = false;
  #ended = false;
  readonly #open = new Set<string | number>();
  #settled: (() => void) | undefined;

  constructor(port: BytePort, note: (message: string) => void, overflow: () => void) {
    this.#port = port;
    this.#note = note;
    this.#onOverflow = overflow;
    this.#lines = new BoundedLines(REQUEST_MAX_BYTES, {
      line: (text) => this.#queue.push(text),
      tooLong: (skipped) => this.#refuse(skipped),
    });
  }

  start(): Promise<void> {
    this.#stop = this.#port.listen(
      (chunk) => {
        this.#lines.push(chunk);
        return this.#take();
      },
      (error) => this.onerror?.(error),
    );
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    try {
      await this.#write(message);
    } finally {
      if (!("method" in message) && "id" in message && message.id != null) {
        this.#open.delete(message.id);
        if (this.#open.size === 0) this.#settled?.();
      }
    }
  }

  /** Resolves once every request received so far is answered. */
  answered(): Promise<void> {
    if (this.#open.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#settled = resolve);
  }

  async #write(message: JSONRPCMessage): Promise<void> {
    if (this.#ended) return;
    // A progress or log line to a client this far behind: it would be old news once read.
    if (!("id" in message) && this.#behind()) return;
    const bytes = encoder.encode(serializeMessage(message));
    if (this.#unsent + bytes.length > REPLY_BACKLOG_MAX_BYTES) return this.#overflow();
    this.#unsent += bytes.length;
    try {
      await this.#port.write(bytes);
    } finally {
      this.#unsent -= bytes.length;
      if (!this.#behind()) this.#wake();
    }
  }

  close(): Promise<void> {
    this.#stop?.();
    this.#stop = undefined;
    this.#end();
    this.onclose?.();
    return Promise.resolve();
  }

  #behind(): boolean {
    return this.#unsent > REPLY_BACKLOG_BYTES;
  }

  /** Takes the lines read; a promise when some must wait (nothing more is read until then). */
  #take(): Promise<void> | undefined {
    if (this.#taking || this.#queue.length === 0) return this.#taking;
    if (this.#queue.length === 1 && !this.#behind()) {
      this.#receive(this.#queue.shift()!);
      return undefined;
    }
    return this.#taking = this.#takeInTurns().finally(() => this.#taking = undefined);
  }

  async #takeInTurns(): Promise<void> {
    while (this.#queue.length > 0) {
      if (this.#behind()) {
        if (!this.#paused) {
          this.#paused = true;
          this.#note(
            `The client has left over ${REPLY_BACKLOG_BYTES} bytes of replies unread: ` +
              "what it sends is taken again once it reads them.",
          );
        }
        await new Promise<void>((resolve) => this.#room.push(resolve));
        continue;
      }
      this.#receive(this.#queue.shift()!);
      if (this.#queue.length > 0) await yieldTurn();
    }
  }

  #wake(): void {
    for (const resolve of this.#room.splice(0)) resolve();
  }

  /** Nothing more is taken or sent; reading goes on, to the end of the client's input. */
  #end(): void {
    this.#ended = true;
    this.#queue = [];
    this.#wake();
  }

  #overflow(): void {
    this.#note(
      `The client has left ${this.#unsent} bytes of replies unread and more are due ` +
        `(over ${REPLY_BACKLOG_MAX_BYTES}): it is taken for gone, its connection ended.`,
    );
    this.#end();
    this.#onOverflow();
  }

  #receive(line: string): void {
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      this.onerror?.(error as Error);
      return;
    }
    if ("method" in message && "id" in message) {
      const error = envelopeError(message.params);
      if (error) {
        this.send({ jsonrpc: "2.0", id: message.id, error }).catch(() => {});
        return;
      }
      this.#open.add(message.id);
    }
    this.onmessage?.(message);
  }

  #refuse({ size, head, tail }: SkippedLine): void {
    const message = `A message of ${size} bytes is larger than Portal reads ` +
      `(${REQUEST_MAX_BYTES} bytes), so it was skipped. Send less per call: process_write ` +
      `takes at most ${CONTENT_MAX_CHARS} characters of content; split longer input into ` +
      "several writes.";
    const id = requestId(head, tail);
    this.#note(id === undefined ? `${message} It had no id to answer.` : message);
    if (id === undefined) return;
    this.send({ jsonrpc: "2.0", id, error: { code: ProtocolErrorCode.InvalidRequest, message } })
      .catch(() => {});
  }
}

const ID = String.raw`"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")`;

/**
 * The id of a request known only by its first and last bytes: before its
 * `params` (`{"jsonrpc":"2.0","id":1,"method":…`), or as its last member
 * (the official SDK client's order, `…,"jsonrpc":"2.0","id":1}`).
 */
export function requestId(head: string, tail: string): string | number | undefined {
  const found = new RegExp(ID).exec(head.split('"params"')[0]) ??
    new RegExp(`${ID}\\s*(?:,\\s*"jsonrpc"\\s*:\\s*"2\\.0"\\s*)?\\}\\s*$`).exec(tail);
  return found ? JSON.parse(found[1]) : undefined;
}
