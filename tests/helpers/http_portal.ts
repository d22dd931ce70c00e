/**
 * A real Portal serving Streamable HTTP (`main.ts --http 127.0.0.1:0`), in a
 * temporary directory of its own, and the SDK's Streamable HTTP client to
 * talk to it. The server picks a free port; its startup line on stderr says
 * which, and the next line the token it made.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { MODERN } from "../../dev/modern_client.ts";
import { initializeRequest, MAIN, serverEnv } from "../../dev/portal_client.ts";
import { type TempDir, tempDir } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";

/** A running HTTP server. */
export class HttpPortal implements AsyncDisposable {
  readonly url: URL;
  readonly token: string;
  readonly #child: Deno.ChildProcess;
  readonly #temp: TempDir;
  readonly #output: { stdout: string; stderr: string };
  readonly #clients: Client[] = [];

  private constructor(
    child: Deno.ChildProcess,
    temp: TempDir,
    output: { stdout: string; stderr: string },
    url: URL,
    token: string,
  ) {
    this.#child = child;
    this.#temp = temp;
    this.#output = output;
    this.url = url;
    this.token = token;
  }

  /**
   * Starts `deno run PERMISSIONS main.ts --http 127.0.0.1:0 ARGS` and waits
   * until it listens; `permissions` default to `-A`.
   */
  static async start(
    options: { args?: string[]; permissions?: string[]; env?: Record<string, string> } = {},
  ): Promise<HttpPortal> {
    const temp = await tempDir("portal-http-");
    const { args = [], permissions = ["-A"], env } = options;
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...permissions, MAIN, "--http", "127.0.0.1:0", ...args],
      env: await serverEnv(temp.path, { env }),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const output = { stdout: "", stderr: "" };
    collect(child.stdout, (text) => output.stdout += text);
    collect(child.stderr, (text) => output.stderr += text);
    try {
      const stderr = await waitFor(
        "the server's startup line and token",
        () => output.stderr,
        { until: (text) => /Bearer [^"]+"/.test(text), timeoutMs: 30_000 },
      );
      const url = new URL(/serving MCP on (http:\S+);/.exec(stderr)![1]);
      const token = /Bearer ([^"]+)"/.exec(stderr)![1];
      return new HttpPortal(child, temp, output, url, token);
    } catch (error) {
      child.kill("SIGKILL");
      await child.status;
      await temp[Symbol.asyncDispose]();
      throw error;
    }
  }

  /** What the server wrote so far. */
  get stdout(): string {
    return this.#output.stdout;
  }

  get stderr(): string {
    return this.#output.stderr;
  }

  /**
   * A client connected to the server with the token and `headers`; `token:
   * null` sends none; it declares `capabilities`. Closed with the server.
   */
  async connect(
    options: {
      headers?: Record<string, string>;
      token?: string | null;
      capabilities?: ClientCapabilities;
    } = {},
  ): Promise<Client> {
    const token = options.token === undefined ? this.token : options.token;
    const headers: Record<string, string> = { ...options.headers };
    if (token !== null) headers.authorization = `Bearer ${token}`;
    const transport = new StreamableHTTPClientTransport(this.url, { requestInit: { headers } });
    const client = new Client({ name: "portal-http-test", version: "0.0.0" }, {
      capabilities: options.capabilities ?? {},
    });
    await client.connect(transport);
    this.#clients.push(client);
    return client;
  }

  /**
   * A session driven by plain `fetch` (initialize, then `call`s), keeping no
   * stream open between calls as the SDK's client does: idle between them.
   */
  async rawSession(): Promise<RawSession> {
    const post = (body: unknown, session?: string) =>
      fetch(this.url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${this.token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
          ...(session ? { "mcp-session-id": session } : {}),
        },
        body: JSON.stringify(body),
      });
    const response = await post(initializeRequest("raw", 0));
    const id = response.headers.get("mcp-session-id");
    const text = await response.text();
    if (id === null) throw Object.assign(new Error(text), { status: response.status });
    await (await post({ jsonrpc: "2.0", method: "notifications/initialized" }, id)).text();
    let next = 1;
    return {
      id,
      stream: async () => {
        const opened = await fetch(this.url, {
          headers: {
            authorization: `Bearer ${this.token}`,
            accept: "text/event-stream",
            "mcp-protocol-version": "2025-06-18",
            "mcp-session-id": id,
          },
        });
        if (!opened.ok) throw new Error(`GET: ${opened.status}`);
        return { close: () => opened.body!.cancel() };
      },
      call: async (method, params) => {
        const answer = await post({ jsonrpc: "2.0", id: next++, method, params }, id);
        const body = await answer.text();
        // One JSON-RPC message, as JSON or as the data of an event.
        const json = /^data: (.*)$/m.exec(body)?.[1] ?? body;
        return { status: answer.status, message: JSON.parse(json) };
      },
    };
  }

  /**
   * A 2026-07-28 request in plain `fetch`, as a client without a session
   * sends it (`Mcp-Method`, and `Mcp-Name` when `name` is given).
   */
  modernPost(
    method: string,
    params: Record<string, unknown>,
    options: { id?: number; name?: string } = {},
  ): Promise<Response> {
    return fetch(this.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${this.token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": method,
        ...options.name === undefined ? {} : { "mcp-name": options.name },
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: options.id ?? 1, method, params }),
    });
  }

  /** SIGTERM, as a service manager stops a server; then removes its directory. */
  async [Symbol.asyncDispose](): Promise<void> {
    await Promise.all(this.#clients.map((client) => client.close()));
    this.#child.kill("SIGTERM");
    await this.#child.status;
    await this.#temp[Symbol.asyncDispose]();
  }
}

/** A session of {@link HttpPortal.rawSession}. */
export interface RawSession {
  id: string;
  /** Opens the stream of server messages (as an SDK client keeps one), until closed. */
  stream(): Promise<{ close(): Promise<void> }>;
  /** A request of the session: its HTTP status and the JSON-RPC message it was answered with. */
  // deno-lint-ignore no-explicit-any
  call(method: string, params?: unknown): Promise<{ status: number; message: any }>;
}

/** Reads a stream to its end, handing each decoded chunk to `add`. */
function collect(stream: ReadableStream<Uint8Array>, add: (text: string) => void): void {
  const decoder = new TextDecoder();
  stream.pipeTo(
    new WritableStream({ write: (bytes) => add(decoder.decode(bytes, { stream: true })) }),
  );
}
