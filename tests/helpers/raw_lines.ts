/**
 * A Portal spoken to in raw JSON-RPC lines over stdio, for tests of the
 * wire itself (what the SDK client would hide or refuse): a door to the
 * host of `dir` (or `--no-host`), requests with a 2026-07-28 `_meta`, and
 * every message the server wrote, in order.
 *
 * @module
 */
import { MODERN } from "../../dev/modern_client.ts";
import { MAIN, serverEnv } from "../../dev/portal_client.ts";
import { waitFor } from "../../dev/wait.ts";

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

/** A server and its lines; closing it closes its stdin (a door's host stays up). */
export interface RawLines extends AsyncDisposable {
  /** Every message the server wrote so far. */
  readonly messages: Message[];
  /** What it wrote to stderr so far, when started with `stderr: true` (else ""). */
  readonly stderr: string;
  /** Sends a request; resolves with its answer and the messages written before it. */
  request(method: string, params: unknown): Promise<{ answer: Message; before: Message[] }>;
  /** Sends one message as it is (a notification, a response, a request answered later). */
  send(message: Message): Promise<void>;
}

/** How {@link rawLines} starts its server. */
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

/** Starts a server in `dir` (a door unless `noHost`) and reads its lines. */
export async function rawLines(dir: string, options: RawLinesOptions = {}): Promise<RawLines> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...options.noHost ? ["--no-host"] : [], ...options.args ?? []],
    env: await serverEnv(dir, { env: options.env }),
    stdin: "piped",
    stdout: "piped",
    stderr: options.stderr ? "piped" : "null",
  }).spawn();
  let stderr = "";
  const stderrRead = options.stderr
    ? child.stderr.pipeThrough(new TextDecoderStream())
      .pipeTo(new WritableStream({ write: (text) => void (stderr += text) }))
    : Promise.resolve();
  const writer = child.stdin.getWriter();
  const messages: Message[] = [];
  const reading = (async () => {
    let pending = "";
    for await (const text of child.stdout.pipeThrough(new TextDecoderStream())) {
      pending += text;
      let end;
      while ((end = pending.indexOf("\n")) >= 0) {
        messages.push(JSON.parse(pending.slice(0, end)));
        pending = pending.slice(end + 1);
      }
    }
  })();
  let next = 1;
  const send = async (message: Message) => {
    await writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  };
  return {
    send,
    messages,
    get stderr() {
      return stderr;
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
    async [Symbol.asyncDispose]() {
      await writer.close();
      await reading;
      await stderrRead;
      await child.status;
    },
  };
}
