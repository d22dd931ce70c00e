/**
 * Portal spoken to in raw JSON-RPC lines over stdio, for tests and
 * benchmarks of the wire itself (what the SDK client would hide or refuse):
 * the one harness for it. {@link rawLines} starts a server (a door to the
 * host of `dir`, or `--no-host`), sends requests as they are (a 2026-07-28
 * `_meta` from {@link modernMeta}), and keeps every line the server wrote, in
 * order; {@link RawStdioTransport} keeps those lines under the SDK's `Client`;
 * {@link spawnServer}, {@link jsonLine} and {@link handshake} are for a client
 * that reads its stdout when, and if, it chooses (one that stops reading its
 * replies, one that closes its input right after asking).
 *
 * @example
 * ```ts ignore
 * await using server = await rawLines(dir, { noHost: true });
 * await server.initialize("raw");
 * const { answer } = await server.request("tools/list", {});
 * ```
 * @module
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { MODERN } from "./modern_client.ts";
import { initializeRequest, MAIN, serverEnv } from "./portal_client.ts";
import { waitFor } from "./wait.ts";

/** The `_meta` of a 2026-07-28 request declaring `capabilities`, with `extra` keys. */
export function modernMeta(
  capabilities: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
    "io.modelcontextprotocol/clientCapabilities": capabilities,
    ...extra,
  };
}

// deno-lint-ignore no-explicit-any
export type Message = any;

/** How a server is started. */
export interface RawLinesOptions {
  /** Run the single-process server (`--no-host`), not a door to a host. */
  noHost?: boolean;
  /** More command-line arguments of the server. */
  args?: string[];
  /** More environment variables of the server. */
  env?: Record<string, string>;
  /** Keep its stderr (a door's only: a host it starts keeps the pipe open). */
  stderr?: boolean;
}

/** `portal` for the Portal directory `dir` (a door unless `noHost`), on pipes. */
export async function spawnServer(
  dir: string,
  options: RawLinesOptions = {},
): Promise<Deno.ChildProcess> {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...options.noHost ? ["--no-host"] : [], ...options.args ?? []],
    env: await serverEnv(dir, { env: options.env }),
    stdin: "piped",
    stdout: "piped",
    stderr: options.stderr ? "piped" : "null",
  }).spawn();
}

/** One JSON-RPC message as the line a client writes. */
export function jsonLine(message: unknown): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(message)}\n`);
}

/** Calls `onLine` with each line of `stdout`, as written, until it ends (a last unended one too). */
export async function readLines(
  stdout: Deno.ChildProcess["stdout"],
  onLine: (line: string) => void,
): Promise<void> {
  let pending = "";
  for await (const text of stdout.pipeThrough(new TextDecoderStream())) {
    pending += text;
    let end;
    while ((end = pending.indexOf("\n")) >= 0) {
      onLine(pending.slice(0, end));
      pending = pending.slice(end + 1);
    }
  }
  if (pending) onLine(pending);
}

/**
 * Opens the MCP session as client `name`: sends `initialize` (id 1), reads
 * `stdout` up to its reply (a door writes nothing more unasked), then sends
 * `notifications/initialized`; `stdout` is free again for the caller.
 */
export async function handshake(
  stdin: WritableStreamDefaultWriter<Uint8Array>,
  stdout: ReadableStream<Uint8Array>,
  name: string,
): Promise<void> {
  await stdin.write(jsonLine(initializeRequest(name)));
  const reader = stdout.getReader();
  try {
    let text = "";
    while (!text.includes('"id":1')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the server ended before its initialize reply: ${text}`);
      text += new TextDecoder().decode(value);
    }
  } finally {
    reader.releaseLock();
  }
  await stdin.write(jsonLine({ jsonrpc: "2.0", method: "notifications/initialized" }));
}

/** A server and its lines; closing it closes its stdin (a door's host stays up). */
export interface RawLines extends AsyncDisposable {
  /** The server's process (a door's, unless `noHost`). */
  readonly child: Deno.ChildProcess;
  /** Every line the server wrote to stdout so far, as written. */
  readonly lines: string[];
  /** Every message the server wrote so far (the lines that are JSON). */
  readonly messages: Message[];
  /** What it wrote to stderr so far, when started with `stderr: true` (else ""). */
  readonly stderr: string;
  /** Whether its stdout has ended. */
  readonly ended: boolean;
  /** Sends a request; resolves with its answer and the messages written before it. */
  request(method: string, params: unknown): Promise<{ answer: Message; before: Message[] }>;
  /** Sends one message as it is (a notification, a response, a request answered later). */
  send(message: Message): Promise<void>;
  /** Sends a notification. */
  notify(method: string, params?: unknown): Promise<void>;
  /** Opens a 2025 session as client `name`: initialize, then initialized. */
  initialize(name: string): Promise<void>;
  /** Closes the server's stdin, as a client that leaves does. */
  closeInput(): Promise<void>;
}

/** Starts a server in `dir` (a door unless `noHost`) and reads its lines. */
export async function rawLines(dir: string, options: RawLinesOptions = {}): Promise<RawLines> {
  const child = await spawnServer(dir, options);
  let stderr = "";
  const stderrRead = options.stderr
    ? child.stderr.pipeThrough(new TextDecoderStream())
      .pipeTo(new WritableStream({ write: (text) => void (stderr += text) }))
    : Promise.resolve();
  const writer = child.stdin.getWriter();
  const lines: string[] = [];
  const messages: Message[] = [];
  let ended = false;
  const reading = readLines(child.stdout, (line) => {
    lines.push(line);
    try {
      messages.push(JSON.parse(line));
    } catch { /* not JSON: kept in lines, for the test that looks */ }
  }).finally(() => ended = true);
  let next = 1;
  const send = (message: unknown) => writer.write(jsonLine(message));
  const server: RawLines = {
    child,
    send,
    lines,
    messages,
    get stderr() {
      return stderr;
    },
    get ended() {
      return ended;
    },
    async request(method, params) {
      const id = next++;
      const from = messages.length;
      await send({ jsonrpc: "2.0", id, method, params });
      await waitFor(`the answer to ${method} ${id}`, () => messages.some((m) => m.id === id), {
        timeoutMs: 60_000,
      });
      const end = messages.findIndex((m) => m.id === id);
      return { answer: messages[end], before: messages.slice(from, end) };
    },
    notify(method, params) {
      return send({ jsonrpc: "2.0", method, ...params === undefined ? {} : { params } });
    },
    async initialize(name) {
      await server.request("initialize", initializeRequest(name).params);
      await server.notify("notifications/initialized");
    },
    closeInput() {
      return writer.close();
    },
    async [Symbol.asyncDispose]() {
      await writer.close().catch(() => {}); // Closed already, or the server is gone.
      await reading;
      await stderrRead;
      await child.status;
    },
  };
  return server;
}

/**
 * A stdio transport for the SDK `Client` that keeps every line the server
 * wrote to stdout, byte for byte, so a test can check that stdout carried
 * JSON-RPC and nothing else. (The SDK's own transport parses lines as they
 * come and would hide what it could not parse behind an error callback.)
 */
export class RawStdioTransport implements Transport {
  readonly lines: string[] = [];
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #child: Deno.ChildProcess;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  #reading: Promise<void> | undefined;

  constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#stdin = child.stdin.getWriter();
  }

  start(): Promise<void> {
    this.#reading = readLines(this.#child.stdout, (line) => {
      this.lines.push(line);
      try {
        this.onmessage?.(JSON.parse(line));
      } catch (error) {
        this.onerror?.(error as Error);
      }
    });
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.#stdin.write(jsonLine(message));
  }

  /** Closes the server's stdin (which stops it) and reads its stdout to the end. */
  async close(): Promise<void> {
    await this.#stdin.close().catch(() => {});
    await this.#reading;
    this.onclose?.();
  }
}
