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
import { MAIN, serverEnv } from "../../dev/portal_client.ts";
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
    options: { args?: string[]; permissions?: string[] } = {},
  ): Promise<HttpPortal> {
    const temp = await tempDir("portal-http-");
    const { args = [], permissions = ["-A"] } = options;
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...permissions, MAIN, "--http", "127.0.0.1:0", ...args],
      env: await serverEnv(temp.path),
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

  /** SIGTERM, as a service manager stops a server; then removes its directory. */
  async [Symbol.asyncDispose](): Promise<void> {
    await Promise.all(this.#clients.map((client) => client.close()));
    this.#child.kill("SIGTERM");
    await this.#child.status;
    await this.#temp[Symbol.asyncDispose]();
  }
}

/** Reads a stream to its end, handing each decoded chunk to `add`. */
function collect(stream: ReadableStream<Uint8Array>, add: (text: string) => void): void {
  const decoder = new TextDecoder();
  stream.pipeTo(
    new WritableStream({ write: (bytes) => add(decoder.decode(bytes, { stream: true })) }),
  );
}
