/**
 * MCP over stdio (or a host's client socket): one JSON-RPC message per
 * line, as the SDK's own transport reads them, but never more than
 * {@link REQUEST_MAX_BYTES} of one line. A
 * longer line is skipped as it streams in (only its first and last few KiB
 * are kept), answered with a JSON-RPC error when its id is found in them, and
 * noted on stderr; the next line is read as usual. The SDK's transport threw
 * on such a line and closed itself with stdin paused: the request got no
 * reply, later ones neither, and the end of stdin (which stops the server)
 * was never seen.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BoundedLines, requestId } from "./stdio.ts";
 *
 * const lines: string[] = [];
 * const skipped: number[] = [];
 * const reader = new BoundedLines(8, {
 *   line: (text) => lines.push(text),
 *   tooLong: ({ size }) => skipped.push(size),
 * });
 * const bytes = (s: string) => new TextEncoder().encode(s);
 * reader.push(bytes('{"a":1}\n{"b":'));
 * reader.push(bytes('"much too long"}\n{}\n'));
 * assert.deepEqual([lines, skipped], [['{"a":1}', "{}"], [21]]);
 * assert.equal(requestId('{"method":"tools/call","params":{"id":3}', '"id":3}},"jsonrpc":"2.0","id":7}'), 7);
 * assert.equal(requestId('{"jsonrpc":"2.0","id":"a","method":"x","params":{', '"id":3}}}'), "a");
 * ```
 * @module
 */
import process from "node:process";
import {
  deserializeMessage,
  type JSONRPCMessage,
  serializeMessage,
  type Transport,
} from "@modelcontextprotocol/server";
import { concatBytes } from "../bytes.ts";
import { CONTENT_MAX_CHARS, REQUEST_MAX_BYTES } from "../limits.ts";
import { envelopeError } from "./envelope.ts";

/** Bytes kept of each end of a skipped line: where a request's id usually is. */
const KEPT_BYTES = 4096;
/** JSON-RPC's "Invalid Request". */
const INVALID_REQUEST = -32600;

/** A line too long to read: its size, and its first and last {@link KEPT_BYTES}. */
export interface SkippedLine {
  size: number;
  head: string;
  tail: string;
}

/** Splits a byte stream into lines of at most `maxBytes`; longer ones are skipped, not kept. */
export class BoundedLines {
  readonly #max: number;
  readonly #on: { line(text: string): void; tooLong(skipped: SkippedLine): void };
  #parts: Uint8Array[] = [];
  #size = 0;
  #skipping: { head: Uint8Array; tail: Uint8Array; size: number } | null = null;

  constructor(
    maxBytes: number,
    on: { line(text: string): void; tooLong(skipped: SkippedLine): void },
  ) {
    this.#max = maxBytes;
    this.#on = on;
  }

  push(chunk: Uint8Array): void {
    for (let start = 0; start < chunk.length;) {
      const newline = chunk.indexOf(0x0a, start);
      this.#take(chunk.subarray(start, newline < 0 ? chunk.length : newline));
      if (newline < 0) return;
      this.#endLine();
      start = newline + 1;
    }
  }

  #take(part: Uint8Array): void {
    if (part.length === 0) return;
    if (this.#skipping) {
      const skipping = this.#skipping;
      skipping.size += part.length;
      skipping.tail = concatBytes([skipping.tail, part]).slice(-KEPT_BYTES);
      return;
    }
    if (this.#size + part.length <= this.#max) {
      this.#parts.push(part.slice());
      this.#size += part.length;
      return;
    }
    const all = concatBytes([...this.#parts, part]);
    this.#skipping = {
      head: all.slice(0, KEPT_BYTES),
      tail: all.slice(-KEPT_BYTES),
      size: all.length,
    };
    this.#parts = [];
    this.#size = 0;
  }

  #endLine(): void {
    const skipping = this.#skipping;
    if (skipping) {
      this.#skipping = null;
      const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
      this.#on.tooLong({
        size: skipping.size,
        head: text(skipping.head),
        tail: text(skipping.tail),
      });
      return;
    }
    const line = new TextDecoder().decode(concatBytes(this.#parts));
    this.#parts = [];
    this.#size = 0;
    this.#on.line(line.endsWith("\r") ? line.slice(0, -1) : line);
  }
}

/**
 * Where a {@link LineTransport} reads and writes: stdin and stdout
 * ({@link stdioPort}), or a host's client socket.
 */
export interface BytePort {
  /** Starts handing what arrives to `onData`; returns how to stop. */
  listen(onData: (chunk: Uint8Array) => void, onError: (error: Error) => void): () => void;
  /** Sends `text`; resolves once it is taken (or can never be). */
  write(text: string): Promise<void>;
}

/** stdin and stdout. stdin keeps flowing once the transport stops: its end is what stops the server. */
export function stdioPort(): BytePort {
  return {
    listen(onData, onError) {
      process.stdin.on("data", onData);
      process.stdin.on("error", onError);
      return () => {
        process.stdin.off("data", onData);
        process.stdin.off("error", onError);
      };
    },
    write: (text) =>
      new Promise((resolve) => {
        if (process.stdout.write(text)) resolve();
        else process.stdout.once("drain", resolve);
      }),
  };
}

/**
 * An MCP server transport of one JSON-RPC message per line over `port`;
 * `note` takes what goes to stderr. It follows the requests it received
 * and the replies it sent, so that its end can wait for what was asked.
 */
export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #port: BytePort;
  readonly #note: (message: string) => void;
  readonly #lines: BoundedLines;
  #stop: (() => void) | undefined;
  readonly #open = new Set<string | number>();
  #settled: (() => void) | undefined;

  constructor(port: BytePort, note: (message: string) => void) {
    this.#port = port;
    this.#note = note;
    this.#lines = new BoundedLines(REQUEST_MAX_BYTES, {
      line: (text) => this.#receive(text),
      tooLong: (skipped) => this.#refuse(skipped),
    });
  }

  start(): Promise<void> {
    this.#stop = this.#port.listen(
      (chunk) => this.#lines.push(chunk),
      (error) => this.onerror?.(error),
    );
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.#port.write(serializeMessage(message));
    if ("method" in message || !("id" in message) || message.id == null) return;
    this.#open.delete(message.id);
    if (this.#open.size === 0) this.#settled?.();
  }

  /** Resolves once every request received so far is answered. */
  answered(): Promise<void> {
    if (this.#open.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#settled = resolve);
  }

  close(): Promise<void> {
    this.#stop?.();
    this.#stop = undefined;
    this.onclose?.();
    return Promise.resolve();
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
    this.send({ jsonrpc: "2.0", id, error: { code: INVALID_REQUEST, message } }).catch(() => {});
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
