/**
 * A real Portal server and an MCP client connected to it, shared by the
 * tests, the benchmarks and the demo. {@link Portal.start} runs
 * `deno run -A main.ts` with its own temporary database, program registry,
 * home and runtime directory (so the programs it runs never write into the
 * user's home, and its host is its own), connects the official MCP SDK
 * `Client` over stdio, and offers the calls every caller needs: tool calls
 * that must succeed or fail, and polls for output, screens and exits, each
 * with a deadline.
 *
 * By default that command is a door, which starts the host of the
 * temporary database and relays to it, as a client's configuration runs
 * Portal; {@link Portal.close} then ends the host too, so no host outlives
 * its test. `noHost` runs the single-process server (`--no-host`) instead.
 *
 * @example
 * ```ts
 * import { Portal } from "./portal_client.ts";
 *
 * await using portal = await Portal.start();
 * const id = await portal.spawn("echo", ["hello"]);
 * await portal.readUntil(id, (text) => text.includes("hello"));
 * ```
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  type ClientCapabilities,
  ErrorCode,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { fileURLToPath } from "node:url";
import { homeEnv } from "./home.ts";
import { pidAlive } from "./process_table.ts";
import { type TempDir, tempDir } from "./temp_dir.ts";
import { waitFor } from "./wait.ts";

/** A raw JSON-RPC `initialize` request, for callers that talk to a server without the SDK. */
export function initializeRequest(clientName: string, id = 1) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: clientName, version: "0" },
    },
  };
}

/** The server's entry point, for whoever starts one. */
export const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));

/**
 * Pause between polls of the server. Each poll is a round trip through the
 * server under test; 50 readers polling at this pace still leave it room.
 */
const POLL_MS = 30;

// deno-lint-ignore no-explicit-any
export type Json = any;

/** One record as the tools return it. */
export interface Rec {
  timestamp: number;
  source: "stdout" | "stderr" | "stdin";
  content: string;
}

/** An interactive bash without the user's rc files: a shell that behaves the same everywhere. */
export const BASH_ARGS = ["--norc", "--noprofile", "-i"];
/** The prompt of that bash, as {@link bashStart} sets it. */
export const BASH_PROMPT = "READY$ ";

/**
 * process_start's arguments for that bash on a PTY, its prompt
 * {@link BASH_PROMPT}; `env` is added to its environment.
 */
export function bashStart(env: Record<string, string> = {}) {
  return { command: "bash", args: BASH_ARGS, pty: true, env: { PS1: BASH_PROMPT, ...env } };
}

/**
 * process_start's arguments for `command` on a PTY, the call returning once
 * it reads (or ends); `extra` adds more (a prompt, env, cwd).
 */
export function onPty(command: string, args: string[] = [], extra: Record<string, unknown> = {}) {
  return { command, args, pty: true, wait: "ready", ...extra };
}

/** Options of {@link Portal.start}. */
export interface StartOptions {
  /** Registry directory, to share one between servers; default: inside the server's temp dir. */
  dataDir?: string;
  /** Set over everything else the server gets. */
  env?: Record<string, string>;
  /** The server's working directory; default: this process's. */
  cwd?: string;
  /** Command-line arguments of the server. */
  args?: string[];
  /** Keep the server's stderr (see {@link Portal.stderr}) instead of passing it through. */
  captureStderr?: boolean;
  /** What the client declares it can do (elicitation: set its handler on `client`). */
  capabilities?: ClientCapabilities;
  /** Run the single-process server (`--no-host`), not a door to a host. */
  noHost?: boolean;
  /** A directory of an earlier Portal to use (its database, home, host), kept at close. */
  dir?: string;
  /**
   * Run the server as this other user (the caller being root), through
   * `setpriv`, with a Deno cache it can read (root's may be private); the
   * server's directory becomes theirs.
   */
  user?: { name: string; denoDir: string };
}

/** How long {@link Portal.close} waits for a host to end. */
const HOST_END_MS = 10_000;

/** A running server and a connected client. */
export class Portal implements AsyncDisposable {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  /** Directory holding this server's database, registry and home; removed by {@link close}. */
  readonly dir: string;
  readonly dbPath: string;
  /** The `HOME` of the server and so of every program it starts. */
  readonly home: string;
  /** Whether the command is a door to a host (not `--no-host`). */
  readonly hosted: boolean;
  readonly #temp: TempDir | undefined;
  #stderr = "";

  private constructor(
    client: Client,
    transport: StdioClientTransport,
    dir: string,
    temp: TempDir | undefined,
    hosted: boolean,
  ) {
    this.client = client;
    this.transport = transport;
    this.#temp = temp;
    this.hosted = hosted;
    this.dir = dir;
    this.dbPath = `${dir}/records.db`;
    this.home = `${dir}/home`;
    transport.stderr?.on(
      "data",
      (chunk: Uint8Array) => this.#stderr += new TextDecoder().decode(chunk),
    );
  }

  /**
   * What the server wrote to stderr so far, when started with `captureStderr`:
   * a door's own lines, then its host's (the host's stderr is its log file).
   */
  get stderr(): string {
    return this.#stderr + (this.hosted ? hostLogs(this.dir) : "");
  }

  /** The pid of the process that holds the programs: the host's, or the `--no-host` server's. */
  get serverPid(): number {
    return this.hosted ? hostPid(this.dir)! : this.transport.pid!;
  }

  /**
   * Starts a server in its own temporary directory (or in `options.dir`, to
   * reach the host an earlier one started) and connects a client to it.
   */
  static async start(options: StartOptions = {}): Promise<Portal> {
    const temp = options.dir ? undefined : await tempDir("portal-server-");
    const dir = options.dir ?? temp!.path;
    const hosted = !options.noHost;
    try {
      const args = ["run", "-A", MAIN, ...hosted ? [] : ["--no-host"], ...options.args ?? []];
      const env = await serverEnv(dir, options);
      const { user } = options;
      if (user) await chown(dir, user.name);
      const transport = new StdioClientTransport({
        command: user ? "setpriv" : Deno.execPath(),
        args: user
          ? [
            `--reuid=${user.name}`,
            `--regid=${user.name}`,
            "--clear-groups",
            "--",
            Deno.execPath(),
          ]
            .concat(args)
          : args,
        // The system's programs (this user's PATH may lead into a home the other cannot enter),
        // or the PATH the caller gives.
        env: user
          ? {
            ...env,
            DENO_DIR: user.denoDir,
            PATH: options.env?.PATH ?? "/usr/local/bin:/usr/bin:/bin",
          }
          : env,
        cwd: options.cwd,
        stderr: options.captureStderr ? "pipe" : "inherit",
      });
      const client = new Client(
        { name: "portal-dev-client", version: "0.0.0" },
        { capabilities: options.capabilities ?? {} },
      );
      await client.connect(transport);
      return new Portal(client, transport, dir, temp, hosted);
    } catch (error) {
      if (temp) await endHost(dir);
      await temp?.[Symbol.asyncDispose]();
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

  /** Calls a tool that must fail; returns its error's kind and data (`_meta["io.portal/error"]`). */
  async refusal(name: string, args: Record<string, unknown> = {}): Promise<Json> {
    return (await refusedCall(this.client, name, args))._meta?.["io.portal/error"] as Json;
  }

  /**
   * Sends a `tools/call` the server must refuse as a whole, with JSON-RPC
   * Invalid params (-32602); returns the message the server sent. `args` go
   * as they are, whatever they are (a string, null, an array).
   */
  async invalid(name: string, args: unknown): Promise<string> {
    const what = `${name} ${JSON.stringify(args)?.slice(0, 120)}`;
    const error: unknown = await this.client.request(
      { method: "tools/call", params: { name, arguments: args as Record<string, unknown> } },
      CallToolResultSchema,
    ).then(
      (result: unknown) => new Error(`${what} was answered: ${JSON.stringify(result)}`),
      (e: unknown) => e,
    );
    const { code, message } = error as { code?: number; message: string };
    if (!(error instanceof McpError) || code !== ErrorCode.InvalidParams) throw error;
    // The client puts "MCP error -32602: " before the server's message.
    return message.replace(/^MCP error -32602: /, "");
  }

  /**
   * Starts {@link bashStart}'s bash and waits until it reads; returns
   * process_start's reply (`id`, `os_pid`; its `output` is the prompt).
   */
  startBash(env: Record<string, string> = {}): Promise<Json> {
    return this.call("process_start", { ...bashStart(env), wait: "ready" });
  }

  /** Starts a program and returns its id. */
  async spawn(command: string, args: string[] = [], extra: Record<string, unknown> = {}) {
    const { id } = await this.call("process_start", { command, args, ...extra });
    return id as number;
  }

  /** Reads new output (process_read_new) until `done(all text read so far)` holds; returns that text. */
  readUntil(
    id: number,
    done: (text: string) => boolean,
    options: { source?: string; timeoutMs?: number } = {},
  ): Promise<string> {
    let text = "";
    return waitFor(`output of process ${id} to satisfy ${done}`, async () => {
      const page = await this.call("process_read_new", { id, source: options.source ?? "both" });
      text += page.records.map((r: Rec) => r.content).join("");
      return text;
    }, { until: done, timeoutMs: options.timeoutMs, intervalMs: POLL_MS });
  }

  /** Polls process_screen until `done(screen)` holds; returns that screen. */
  screenUntil(id: number, done: (screen: Json) => boolean, timeoutMs?: number): Promise<Json> {
    return waitFor(
      `the screen of process ${id} to satisfy ${done}`,
      () => this.call("process_screen", { id }),
      { until: done, timeoutMs, intervalMs: POLL_MS },
    );
  }

  /** Polls process_inspect until the process is no longer running; returns what it says then. */
  waitExit(id: number, timeoutMs?: number): Promise<Json> {
    return waitFor(
      `process ${id} to end`,
      () => this.call("process_inspect", { id }),
      { until: (info) => info.status !== "running", timeoutMs, intervalMs: POLL_MS },
    );
  }

  /**
   * Closes the client (the server sees stdin close and shuts down; a door's
   * host kills this client's programs). When the directory is this Portal's
   * own, it then ends the host (SIGTERM, waiting for it to be gone) and
   * removes the directory.
   */
  async close(): Promise<void> {
    try {
      await this.client.close();
    } finally {
      if (this.#temp) {
        try {
          await endHost(this.dir);
        } finally {
          await this.#temp[Symbol.asyncDispose]();
        }
      }
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** What {@link callTool} needs of a client: the SDK's, v1 (2025-11-25) or v2 (2026-07-28). */
export interface ToolCaller {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}

/** Calls a tool through any client and returns its structured result; throws if it reported an error. */
export async function callTool(
  client: ToolCaller,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Json> {
  const result = await client.callTool({ name, arguments: args }) as CallToolResult;
  if (result.isError) {
    throw new Error(`${name} failed: ${(result.content[0] as { text: string }).text}`);
  }
  return result.structuredContent;
}

/** Calls a tool that must fail, through any client; returns its error message. */
export async function failTool(
  client: ToolCaller,
  name: string,
  args: Record<string, unknown> = {},
): Promise<string> {
  return ((await refusedCall(client, name, args)).content[0] as { text: string }).text;
}

/** The result of a tool call that must fail; throws if it did not. */
async function refusedCall(
  client: ToolCaller,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  const result = await client.callTool({ name, arguments: args }) as CallToolResult;
  if (!result.isError) {
    throw new Error(`${name} succeeded but should have failed: ${JSON.stringify(result)}`);
  }
  return result;
}

/** Gives `path` and everything in it to user `name` (and its group). */
export async function chown(path: string, name: string): Promise<void> {
  const { success, stderr } = await new Deno.Command("chown", {
    args: ["-R", `${name}:${name}`, path],
    stderr: "piped",
  }).output();
  if (!success) throw new Error(`chown ${name} ${path}: ${new TextDecoder().decode(stderr)}`);
}

/** The runtime directory of the servers kept in `dir`: their host's socket goes there. */
export function runtimeDirOf(dir: string): string {
  return `${dir}/run`;
}

/** The pid of the host a door in `dir` reached (its socket's lock names it), if one runs. */
export function hostPid(dir: string): number | undefined {
  let names: string[];
  try {
    names = [...Deno.readDirSync(`${runtimeDirOf(dir)}/portal`)].map((e) => e.name);
  } catch {
    return undefined;
  }
  for (const name of names.filter((n) => n.endsWith(".sock.lock"))) {
    const pid = Number.parseInt(Deno.readTextFileSync(`${runtimeDirOf(dir)}/portal/${name}`));
    if (Number.isInteger(pid) && pidAlive(pid)) return pid;
  }
  return undefined;
}

/** What the hosts of `dir` wrote to their logs (their stderr), oldest host first. */
export function hostLogs(dir: string): string {
  const logs = `${dir}/home/.local/state/portal`;
  let names: string[];
  try {
    names = [...Deno.readDirSync(logs)].map((e) => e.name).filter((n) => /^host-.*\.log$/.test(n));
  } catch {
    return "";
  }
  return names.sort().map((name) => Deno.readTextFileSync(`${logs}/${name}`)).join("");
}

/** Ends the host of `dir`, if one runs: SIGTERM, then waits until it is gone. */
export async function endHost(dir: string): Promise<void> {
  const pid = hostPid(dir);
  if (pid === undefined) return;
  try {
    Deno.kill(pid, "SIGTERM");
  } catch { /* gone meanwhile */ }
  await waitFor(`host ${pid} to end`, () => !pidAlive(pid), { timeoutMs: HOST_END_MS });
}

/**
 * The environment of a server kept inside `dir`: its database, registry,
 * home (made here) and runtime directory (made by the door) are there, and
 * its Deno still finds its cache.
 */
export async function serverEnv(
  dir: string,
  options: Pick<StartOptions, "dataDir" | "env"> = {},
): Promise<Record<string, string>> {
  const home = `${dir}/home`;
  await Deno.mkdir(home, { recursive: true });
  return {
    ...Deno.env.toObject(),
    // The server's Deno must keep finding its dependencies once HOME moves.
    DENO_DIR: await denoDir(),
    ...homeEnv(home),
    XDG_RUNTIME_DIR: runtimeDirOf(dir),
    PORTAL_DB_PATH: `${dir}/records.db`,
    PORTAL_DATA_DIR: options.dataDir ?? `${dir}/data`,
    ...options.env,
  };
}

let denoDirOnce: Promise<string> | undefined;

/** Deno's cache directory as this Deno sees it: `DENO_DIR`, else what `deno info` reports. */
export function denoDir(): Promise<string> {
  return denoDirOnce ??= (async () => {
    const set = Deno.env.get("DENO_DIR");
    if (set) return set;
    const { success, stdout } = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json"],
      env: { NO_COLOR: "1" },
      stderr: "inherit",
    }).output();
    if (!success) throw new Error("`deno info --json` failed: cannot locate Deno's cache");
    return JSON.parse(new TextDecoder().decode(stdout)).denoDir;
  })();
}
