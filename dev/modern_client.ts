/**
 * Portal through the MCP SDK v2 client speaking MCP 2026-07-28 (no
 * `initialize`: a `server/discover`, then every request with its `_meta`),
 * for the tests, the benchmarks and the demo. {@link ModernPortal.start}
 * runs the server as {@link Portal.start} does (a door to its own host, or
 * `--no-host`), in a temporary directory of its own; {@link modernClient}
 * connects a client of that revision over any transport (HTTP too).
 *
 * @example
 * ```ts
 * import { ModernPortal } from "./modern_client.ts";
 *
 * await using portal = await ModernPortal.start();
 * const { id } = await portal.call("process_start", { command: "echo", args: ["hi"] });
 * await portal.call("process_read_new", { id, wait: "exit" });
 * ```
 * @module
 */
import { Client, type ClientCapabilities, type Transport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { callTool, endHost, failTool, type Json, MAIN, serverEnv } from "./portal_client.ts";
import { type TempDir, tempDir } from "./temp_dir.ts";

/** The revision these clients speak. */
export const MODERN = "2026-07-28";

/**
 * The SDK's stdio transport, under another name: the SDK probes a server
 * of exactly its own class in a second process (some servers exit on a
 * request before `initialize`), and any other class on the connection itself.
 */
class ProbeInPlace extends StdioClientTransport {}

/**
 * A client of 2026-07-28 named `name`, connected over `transport`; it
 * declares `capabilities`. `legacy`: of 2025-11-25 instead (`initialize`),
 * to tell what the revision costs from what the client library does.
 */
export async function modernClient(
  transport: Transport,
  capabilities: ClientCapabilities = {},
  name = "portal-dev-client",
  legacy = false,
): Promise<Client> {
  const client = new Client(
    { name, version: "0.0.0" },
    legacy ? { capabilities } : { capabilities, versionNegotiation: { mode: { pin: MODERN } } },
  );
  await client.connect(transport);
  return client;
}

/** A running server and a 2026-07-28 client connected to it over stdio. */
export class ModernPortal implements AsyncDisposable {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  readonly dir: string;
  readonly #temp: TempDir;

  private constructor(client: Client, transport: StdioClientTransport, temp: TempDir) {
    this.client = client;
    this.transport = transport;
    this.#temp = temp;
    this.dir = temp.path;
  }

  /**
   * Starts a server (a door, or `noHost`; `env` added to its environment)
   * and connects; the client declares `capabilities`, and speaks 2025-11-25
   * if `legacy`.
   */
  static async start(
    options: {
      noHost?: boolean;
      capabilities?: ClientCapabilities;
      legacy?: boolean;
      env?: Record<string, string>;
    } = {},
  ): Promise<ModernPortal> {
    const temp = await tempDir("portal-server-");
    try {
      const transport = new ProbeInPlace({
        command: Deno.execPath(),
        args: ["run", "-A", MAIN, ...options.noHost ? ["--no-host"] : []],
        env: await serverEnv(temp.path, { env: options.env }),
        stderr: "inherit",
      });
      const client = await modernClient(transport, options.capabilities, undefined, options.legacy);
      return new ModernPortal(client, transport, temp);
    } catch (error) {
      await endHost(temp.path);
      await temp[Symbol.asyncDispose]();
      throw error;
    }
  }

  /** Calls a tool and returns its structured result; throws if it reported an error. */
  call(name: string, args: Record<string, unknown> = {}): Promise<Json> {
    return callTool(this.client, name, args);
  }

  /** Calls a tool that must fail; returns its error message. */
  fail(name: string, args: Record<string, unknown> = {}): Promise<string> {
    return failTool(this.client, name, args);
  }

  /** Closes the client, ends the host if one was started, removes the directory. */
  async [Symbol.asyncDispose](): Promise<void> {
    try {
      await this.client.close();
    } finally {
      try {
        await endHost(this.dir);
      } finally {
        await this.#temp[Symbol.asyncDispose]();
      }
    }
  }
}
