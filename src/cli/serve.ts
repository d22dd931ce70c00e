/**
 * `portal` as a server: serves MCP on stdio, or with `--http` over Streamable
 * HTTP; says so in one line on stderr; and on the way out (stdin closed on
 * stdio, or a shutdown signal) kills every program it started. All sessions
 * share one records database and program registry; over HTTP each session
 * has its own {@link ProcessManager} (ids drawn from one counter, as the
 * database keys records by id) unless `--share-processes` gives them one.
 *
 * @module
 */
import process from "node:process";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { settlesWithin } from "../async.ts";
import { createPrivateFile, dataDir, recordsDbPath } from "../core/paths.ts";
import { type IdCounter, ProcessManager } from "../core/process_manager.ts";
import { ProgramRegistry } from "../core/program_registry.ts";
import { RecordStore } from "../core/record_store.ts";
import { SHUTDOWN_DEADLINE_MS } from "../limits.ts";
import { type HttpService, serveHttp, type SessionContext } from "../mcp/http.ts";
import { generateToken, isLoopback, RequestGuard } from "../mcp/http_guard.ts";
import { Log } from "../mcp/logging.ts";
import { createServer, VERSION } from "../mcp/server.ts";
import { SHUTDOWN_SIGNALS } from "../platform.ts";
import { type Options, withPathFlags } from "./args.ts";

/** Serves until stopped; then exits the process. */
export async function serve(options: Options, env: Record<string, string>): Promise<void> {
  keepStdoutForProtocol();
  const log = new Log(options.logLevel);
  reportStrayFailures(log);

  const paths = withPathFlags(options, env);
  const dbPath = recordsDbPath(paths);
  createPrivateFile(dbPath);
  const store = new RecordStore(dbPath);
  const registry = new ProgramRegistry(dataDir(paths));
  const managers = new Set<ProcessManager>();
  const ids: IdCounter = { next: 1 };
  const newManager = () => {
    const manager = new ProcessManager(store, ids);
    managers.add(manager);
    return manager;
  };

  let stopService = (): Promise<void> => Promise.resolve();
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await settlesWithin(
      stopService().then(() => Promise.all([...managers].map((m) => m.killAll()))),
      SHUTDOWN_DEADLINE_MS,
    );
    store.close();
    registry.close();
    Deno.exit(0);
  };
  for (const signal of SHUTDOWN_SIGNALS) Deno.addSignalListener(signal, shutdown);

  if (!options.http) {
    const { server } = createServer({ manager: newManager(), registry }, log);
    // The client closing our stdin is the normal way an MCP stdio server is told to stop.
    process.stdin.on("end", shutdown);
    process.stdin.on("close", shutdown);
    await server.connect(new StdioServerTransport());
    console.error(`portal ${VERSION} serving MCP on stdio; records database ${dbPath}`);
    return;
  }

  const { hostname, port } = options.http;
  const token = env.PORTAL_TOKEN || generateToken();
  const guard = new RequestGuard({ listenHost: hostname, allowHosts: options.allowHosts, token });
  let sharedManager: ProcessManager | undefined;
  const openSession = (): SessionContext => {
    if (options.shareProcesses) {
      sharedManager ??= newManager();
      return { context: { manager: sharedManager, registry }, end: () => Promise.resolve() };
    }
    const manager = newManager();
    return { context: { manager, registry }, end: () => endSession(manager, managers) };
  };
  let http: HttpService;
  try {
    http = serveHttp({ listen: options.http, guard, log, openSession });
  } catch (error) {
    console.error(`portal: cannot listen on ${hostname}:${port}: ${(error as Error).message}`);
    store.close();
    registry.close();
    Deno.removeSync(dbPath);
    Deno.exit(1);
  }
  stopService = http.close;
  console.error(`portal ${VERSION} serving MCP on ${http.url}; records database ${dbPath}`);
  if (!env.PORTAL_TOKEN) {
    console.error(
      `portal: clients must send "Authorization: Bearer ${token}" ` +
        "(a new token at each start; set PORTAL_TOKEN to choose one)",
    );
  }
  if (!isLoopback(hostname)) {
    console.error(
      `portal: ${hostname} is reachable from other machines and HTTP is not encrypted: anyone ` +
        "on the way can read the token and the programs' I/O. Put a TLS proxy in front.",
    );
  }
}

/** A session's processes die with it, and its records go: no one can read them any more. */
async function endSession(manager: ProcessManager, managers: Set<ProcessManager>): Promise<void> {
  managers.delete(manager);
  await manager.killAll();
  for (const { id } of manager.list()) manager.cleanup(id);
}

/**
 * On stdio, stdout is the protocol: a stray `console.log` (ours or a
 * dependency's) would corrupt it, so the console's stdout methods write to
 * stderr instead. Over HTTP the same keeps stdout quiet.
 */
function keepStdoutForProtocol(): void {
  console.log = console.info = console.debug = console.error;
}

/**
 * A long-lived server outlives a stray failure: it is logged instead of
 * ending the server and every program with it.
 */
function reportStrayFailures(log: Log): void {
  const report = (what: string) => (event: Event) => {
    event.preventDefault();
    const detail = event instanceof ErrorEvent
      ? event.error
      : (event as PromiseRejectionEvent).reason;
    log.log("error", "server", `${what}: ${detail?.stack ?? detail}`);
  };
  globalThis.addEventListener("error", report("uncaught error"));
  globalThis.addEventListener("unhandledrejection", report("unhandled rejection"));
}
