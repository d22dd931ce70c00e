/**
 * Test harness: a real Portal server started with `deno run -A main.ts`,
 * driven through the official MCP SDK `Client` over stdio.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { fileURLToPath } from "node:url";
import { posixTest } from "./platform.ts";

const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));

// deno-lint-ignore no-explicit-any
export type Json = any;

/** One record as the tools return it. */
export interface Rec {
  timestamp: number;
  source: "stdout" | "stderr" | "stdin";
  content: string;
}

/** A running server and a connected client. */
export class Portal {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  /** Directory holding this server's database and registry. */
  readonly dir: string;
  readonly dbPath: string;

  private constructor(
    client: Client,
    transport: StdioClientTransport,
    dir: string,
    dbPath: string,
  ) {
    this.client = client;
    this.transport = transport;
    this.dir = dir;
    this.dbPath = dbPath;
  }

  /** Starts a server with its own temporary database (and registry, unless `dataDir` is given). */
  static async start(
    options: { dataDir?: string; env?: Record<string, string>; cwd?: string } = {},
  ) {
    const dir = await Deno.makeTempDir({ prefix: "portal-test-" });
    const dbPath = `${dir}/records.db`;
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "-A", MAIN],
      env: {
        ...Deno.env.toObject(),
        PORTAL_DB_PATH: dbPath,
        PORTAL_DATA_DIR: options.dataDir ?? `${dir}/data`,
        ...options.env,
      },
      cwd: options.cwd,
      stderr: "inherit",
    });
    const client = new Client({ name: "portal-tests", version: "0.0.0" });
    await client.connect(transport);
    return new Portal(client, transport, dir, dbPath);
  }

  /** Calls a tool and returns its structured result; throws if it reported an error. */
  async call(name: string, args: Record<string, unknown> = {}): Promise<Json> {
    const result = await this.client.callTool({ name, arguments: args }) as CallToolResult;
    if (result.isError) {
      throw new Error(`${name} failed: ${(result.content[0] as { text: string }).text}`);
    }
    return result.structuredContent;
  }

  /** Calls a tool that must fail; returns its error message. */
  async fail(name: string, args: Record<string, unknown> = {}): Promise<string> {
    const result = await this.client.callTool({ name, arguments: args }) as CallToolResult;
    if (!result.isError) {
      throw new Error(`${name} succeeded but should have failed: ${JSON.stringify(result)}`);
    }
    return (result.content[0] as { text: string }).text;
  }

  /** Starts a program and returns its id. */
  async spawn(command: string, args: string[] = [], extra: Record<string, unknown> = {}) {
    const { id } = await this.call("process_start", { command, args, ...extra });
    return id as number;
  }

  /**
   * Reads new output until `done(all text so far)` holds; the deadline makes a
   * missing answer a failure instead of a hang.
   */
  async readUntil(
    id: number,
    done: (text: string) => boolean,
    options: { source?: string; timeoutMs?: number } = {},
  ): Promise<string> {
    const deadline = Date.now() + (options.timeoutMs ?? 10_000);
    let text = "";
    for (;;) {
      const page = await this.call("process_read_new", { id, source: options.source ?? "both" });
      text += page.records.map((r: Rec) => r.content).join("");
      if (done(text)) return text;
      if (Date.now() > deadline) {
        throw new Error(`Timed out waiting for output of ${id}; got: ${JSON.stringify(text)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
  }

  /** Polls process_screen until `done(screen)` holds; the deadline turns a hang into a failure. */
  async screenUntil(
    id: number,
    done: (screen: Json) => boolean,
    timeoutMs = 10_000,
  ): Promise<Json> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = await this.call("process_screen", { id });
      if (done(screen)) return screen;
      if (Date.now() > deadline) {
        throw new Error(`Timed out waiting on the screen of ${id}: ${JSON.stringify(screen)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
  }

  /** Polls process_inspect until the process is no longer running. */
  async waitExit(id: number, timeoutMs = 10_000): Promise<Json> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const info = await this.call("process_inspect", { id });
      if (info.status !== "running") return info;
      if (Date.now() > deadline) {
        throw new Error(`Process ${id} still running after ${timeoutMs} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
  }

  /** Closes the client (the server sees stdin close and shuts down) and removes the temp dir. */
  async close(): Promise<void> {
    await this.client.close();
    await Deno.remove(this.dir, { recursive: true }).catch(() => {});
  }
}

/** True while a process with this pid exists and is not a zombie (`ps` works on Linux and macOS). */
export function pidAlive(pid: number): boolean {
  const { stdout } = new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)] })
    .outputSync();
  const state = new TextDecoder().decode(stdout).trim();
  return state !== "" && !state.startsWith("Z");
}

/**
 * A {@link posixTest} that gets a fresh server, closed whatever the outcome;
 * `only` restricts it to one OS (reported as ignored elsewhere).
 */
export function portalTest(
  name: string,
  fn: (portal: Portal) => Promise<void>,
  options: { only?: typeof Deno.build.os } = {},
): void {
  posixTest(name, async () => {
    const portal = await Portal.start();
    try {
      await fn(portal);
    } finally {
      await portal.close();
    }
  }, options);
}
