/**
 * The first line each way on a host's socket, before anything else flows:
 * the caller says who it is and what it wants ({@link Hello}: a door relaying
 * MCP, with its client's working directory and environment; `portal ps`;
 * `portal attach`), and the host answers with its own identity or a refusal
 * ({@link Welcome}). Then a door hands its stdio over ({@link Handed}) or
 * relays MCP bytes as they are; `ps` reads
 * one line; `attach` speaks frames (attach/frames.ts).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { concatBytes } from "../bytes.ts";
 * import { encodeLine, LineReader } from "./hello.ts";
 *
 * const line = encodeLine({ portal: "0.1.0", role: "ps" });
 * const chunk = concatBytes([line, new TextEncoder().encode("after")]);
 * const reader = new LineReader(ReadableStream.from([chunk]).getReader());
 * assert.deepEqual(await reader.json(), { portal: "0.1.0", role: "ps" });
 * assert.equal(new TextDecoder().decode(reader.rest()), "after");
 * ```
 * @module
 */
import { concatBytes } from "../bytes.ts";
import type { ProcessSummary } from "../core/model/schema.ts";
import type { LoggingLevel } from "../mcp/logging.ts";
import type { Policy } from "../core/policy/policy.ts";

/** What a caller of the host says first. */
export type Hello =
  | {
    portal: string;
    role: "mcp";
    cwd: string;
    env: Record<string, string>;
    /** The door's `--log-level`: what its client hears until it sets a level. */
    logLevel: LoggingLevel;
    /** Whether the door can hand its stdin and stdout over (stdio_handoff.ts). */
    handoff?: boolean;
    /** The person's rules for the programs this client starts (the door's PORTAL_POLICY). */
    policy?: Policy;
  }
  | { portal: string; role: "ps" }
  | { portal: string; role: "attach"; target: string };

/** The host's answer: who it is, or why it will not serve this caller. */
export interface Welcome {
  portal: string;
  pid: number;
  database: string;
  /** Set when the host refuses: the whole message for the person. */
  error?: string;
  /** `attach`: the process joined. */
  process?: ProcessSummary;
  /** `mcp`, to a door that can hand its stdio over: where to send it. */
  handoff?: Handoff;
}

/** Where a door sends its stdin and stdout fds, and the token that names its session there. */
export interface Handoff {
  socket: string;
  token: string;
}

/** A door's line after a welcome with a {@link Handoff}: whether it sent its fds. */
export interface Handed {
  handed: boolean;
}

/** A hello or welcome is small; a line longer than this is not one. */
const MAX_LINE_BYTES = 1 << 20;

/** Bytes read at most per read of a socket. */
const READ_BYTES = 64 * 1024;

/**
 * A reader of `conn` that leaves it open at the end of its input. (Deno's
 * `conn.readable` closes the connection when the other side has shut down
 * its writing, which would leave no way to answer what it asked last.)
 */
export function connReader(conn: Deno.Conn): ReadableStreamDefaultReader<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const buffer = new Uint8Array(READ_BYTES);
      const n = await conn.read(buffer);
      if (n === null) controller.close();
      else controller.enqueue(buffer.subarray(0, n));
    },
  }).getReader();
}

/**
 * A function that writes to `conn` in order, each chunk whole; a write that
 * fails (the other side is gone) is dropped, and so are those after it.
 */
export function connWriter(conn: Deno.Conn): (bytes: Uint8Array) => Promise<void> {
  let last = Promise.resolve();
  return (bytes) =>
    last = last.then(async () => {
      for (let done = 0; done < bytes.length;) done += await conn.write(bytes.subarray(done));
    }).catch(() => {});
}

/** `value` as one line of JSON, as bytes. */
export function encodeLine(value: unknown): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`${JSON.stringify(value)}\n`);
}

/** Reads lines off a byte stream, then hands over what came after them. */
export class LineReader {
  readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  #buffered: Uint8Array = new Uint8Array();

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>) {
    this.reader = reader;
  }

  /** The next line parsed as JSON; throws at the end of the stream or on a line too long. */
  async json<T>(): Promise<T> {
    for (;;) {
      const newline = this.#buffered.indexOf(0x0a);
      if (newline >= 0) {
        const line = new TextDecoder().decode(this.#buffered.subarray(0, newline));
        this.#buffered = this.#buffered.slice(newline + 1);
        return JSON.parse(line) as T;
      }
      if (this.#buffered.length > MAX_LINE_BYTES) throw new Error("the first line is too long");
      const { value, done } = await this.reader.read();
      if (done) throw new Error("the connection ended before its first line");
      this.#buffered = concatBytes([this.#buffered, value]);
    }
  }

  /** What was read past the last line (possibly nothing); the reader goes on from there. */
  rest(): Uint8Array {
    const rest = this.#buffered;
    this.#buffered = new Uint8Array();
    return rest;
  }
}
