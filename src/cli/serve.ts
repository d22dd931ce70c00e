/**
 * `portal` as a server: serves MCP on stdio, or with `--http` over Streamable
 * HTTP; says so in one line on stderr; and on the way out (stdin closed on
 * stdio, or a shutdown signal) kills every program it started. All sessions
 * share one records database and program registry; over HTTP each session
 * has its own {@link ProcessManager} unless `--share-processes` gives them one.
 *
 * @module
 */
import process from "node:process";
import { settlesWithin } from "../async.ts";
import { dataDir, recordsDbPath, recordsDir } from "../core/store/paths.ts";
import { ProcessManager } from "../core/process/manager.ts";
import { ProcessPool, type Session } from "../core/process/pool.ts";
import { ProgramRegistry } from "../core/registry/program_registry.ts";
import { RecordStore } from "../core/store/record_store.ts";
import {
  claimRecordsFile,
  type RecordsFile,
  removeOldRecords,
} from "../core/store/database_file.ts";
import { hideSecretValues } from "../environment.ts";
import { retentionDays, sessionLimits, SHUTDOWN_DEADLINE_MS } from "../limits.ts";
import { type HttpService, type Listen, serveHttp, type SessionContext } from "../mcp/http.ts";
import { generateToken, isLoopback, RequestGuard } from "../mcp/http_guard.ts";
import { Log } from "../mcp/logging.ts";
import { createServer, VERSION } from "../mcp/server.ts";
import { StdioTransport } from "../mcp/stdio.ts";
import { SHUTDOWN_SIGNALS } from "../platform.ts";
import { type Options, withPathFlags } from "./args.ts";
import { WatchService } from "../watch/service.ts";
import { WATCH_PATH } from "../watch/access.ts";
import { publishLink } from "./watch_link.ts";

/** Serves until stopped; then exits the process. */
export async function serve(options: Options, env: Record<string, string>): Promise<void> {
  keepStdoutForProtocol();
  // Before any program could read the environment the server was started with.
  hideSecretValues(env);
  const log = new Log(options.logLevel);
  reportStrayFailures(log);
  const paths = withPathFlags(options, env);
  const watch = listenWatch(options.watchPort ?? 0);
  if (options.http) serveOverHttp(options, options.http, paths, env, log, watch);
  else await serveOverStdio(paths, log, watch);
}

async function serveOverStdio(
  paths: Record<string, string>,
  log: Log,
  watch: WatchService,
): Promise<void> {
  const shared = openShared(paths, log, watch);
  const manager = shared.manager();
  const scope = watch.open(manager);
  const context = {
    manager,
    registry: shared.registry,
    watch: { link: (id?: number) => watch.link(scope, id) },
  };
  const { server } = createServer(context, log);
  const shutdown = onShutdown(() => shared.close());
  // The client closing our stdin is the normal way an MCP stdio server is told to stop.
  process.stdin.on("end", shutdown);
  process.stdin.on("close", shutdown);
  await server.connect(new StdioTransport((note) => log.log("warning", "server", note)));
  console.error(`portal ${VERSION} serving MCP on stdio; records database ${shared.database}`);
  console.error(watchLine(watch));
}

/** Where the watch page is, for the startup lines: its link's token is not for a log. */
function watchLine(watch: WatchService): string {
  return `portal: watch page ${watch.url} (its link: process_watch, or \`portal watch\`)`;
}

/** The watch page's own listener, or a clear message and exit 1 when its port is taken. */
function listenWatch(port: number): WatchService {
  try {
    return WatchService.listen(port);
  } catch (error) {
    console.error(`portal: cannot listen on 127.0.0.1:${port}: ${(error as Error).message}`);
    Deno.exit(1);
  }
}

function serveOverHttp(
  options: Options,
  listen: Listen,
  paths: Record<string, string>,
  env: Record<string, string>,
  log: Log,
  watch: WatchService,
): void {
  const token = env.PORTAL_TOKEN || generateToken();
  let sessions;
  try {
    sessions = sessionLimits(env);
  } catch (error) {
    console.error(`portal: cannot start: ${(error as Error).message}.`);
    Deno.exit(1);
  }
  const guard = new RequestGuard({
    listenHost: listen.hostname,
    allowHosts: options.allowHosts,
    token,
  });
  let http: HttpService;
  try {
    // Listen before any file is made, so a port already taken leaves none behind. No request
    // is handled before this function returns, and so before openSession below exists.
    http = serveHttp({
      listen,
      guard,
      log,
      sessions,
      openSession: () => openSession(),
      mount: { path: WATCH_PATH, handler: (port) => watch.handler(guard, port) },
    });
  } catch (error) {
    console.error(
      `portal: cannot listen on ${listen.hostname}:${listen.port}: ${(error as Error).message}`,
    );
    Deno.exit(1);
  }
  const shared = openShared(paths, log, watch);
  // With --share-processes every HTTP session is one session of the pool, which never ends.
  const everyone: Session = { seesAll: true };
  let stopping = false;
  const openSession = (): SessionContext => {
    const { registry } = shared;
    const manager = shared.manager(options.shareProcesses ? everyone : undefined);
    const scope = watch.open(manager);
    const context = { manager, registry, watch: { link: (id?: number) => watch.link(scope, id) } };
    // At shutdown the records stay, as a stdio server's do; a session that ends before takes them.
    const endProcesses = () =>
      options.shareProcesses || stopping ? Promise.resolve() : shared.endSession(manager.session);
    return { context, end: () => endProcesses().finally(() => watch.end(scope)) };
  };
  onShutdown(() => {
    stopping = true;
    return shared.close(http.close());
  });
  console.error(
    `portal ${VERSION} serving MCP on ${http.url}; records database ${shared.database}`,
  );
  console.error(`${watchLine(watch)}; also at ${WATCH_PATH}/ there`);
  if (!env.PORTAL_TOKEN) {
    console.error(
      `portal: clients must send "Authorization: Bearer ${token}" ` +
        "(a new token at each start; set PORTAL_TOKEN to choose one)",
    );
  }
  if (!isLoopback(listen.hostname)) {
    console.error(
      `portal: ${listen.hostname} is reachable from other machines and HTTP is not encrypted: ` +
        "anyone on the way can read the token and the programs' I/O. Put a TLS proxy in front.",
    );
  }
}

/** The shared files, or a clear message and exit 1 when they cannot be made. */
function openShared(paths: Record<string, string>, log: Log, watch: WatchService): Shared {
  try {
    return new Shared(paths, log, watch);
  } catch (error) {
    // One line, no stack: the message says what is wrong and what to do.
    const message = String((error as Error)?.message ?? error).replace(/[.\s]+$/, "");
    console.error(
      `portal: cannot start: ${message}. \`portal doctor\` checks the places Portal writes ` +
        "to; --db PATH and --data-dir PATH choose others.",
    );
    Deno.exit(1);
  }
}

/** Calls `stop` on the first shutdown signal (or call of the returned function), then exits. */
function onShutdown(stop: () => Promise<void>): () => Promise<void> {
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await stop();
    Deno.exit(0);
  };
  for (const signal of SHUTDOWN_SIGNALS) Deno.addSignalListener(signal, shutdown);
  return shutdown;
}

/**
 * What every session of the server shares: one records database (so ids come
 * from one counter: the database keys records by process id), the program
 * registry, and the pool of every session's processes, killed together at
 * shutdown. A database reopened after an earlier run keeps its records; ids
 * go on after the highest it holds, and the earlier run's processes are not
 * this server's.
 */
class Shared {
  readonly dbPath: string;
  readonly store: RecordStore;
  readonly registry: ProgramRegistry;
  readonly #file: RecordsFile;
  readonly #pool: ProcessPool;
  readonly #watch: WatchService;
  readonly #unpublish: () => void;

  constructor(paths: Record<string, string>, log: Log, watch: WatchService) {
    this.dbPath = recordsDbPath(paths);
    const retentionMs = retentionDays(paths) * 86_400_000;
    removeOldRecords(recordsDir(paths), retentionMs, { keep: this.dbPath });
    this.#file = claimRecordsFile(this.dbPath);
    try {
      this.store = new RecordStore(this.dbPath, {
        onWritesChange: (failure) =>
          log.log(
            failure ? "error" : "notice",
            "server",
            failure ?? "The records database is written again.",
          ),
      });
      this.#pool = new ProcessPool(this.store);
      this.registry = new ProgramRegistry(dataDir(paths));
      this.#watch = watch;
      watch.showAll(this.manager({ seesAll: true }));
      this.#unpublish = publishLink(this.dbPath, watch.link(watch.everything));
    } catch (error) {
      this.#file.release();
      throw error;
    }
  }

  /** The database for the startup line: its path, and whether an earlier server's records are in it. */
  get database(): string {
    const first = this.#pool.ids.first!;
    return this.#file.existed
      ? `${this.dbPath} (opened again: its records are kept, new ids start at ${first})`
      : this.dbPath;
  }

  /** The view of `session` (a new one by default: a client of stdio, or an HTTP session). */
  manager(session: Session = {}): ProcessManager {
    return new ProcessManager(this.#pool, session);
  }

  /**
   * A session's unkept processes die with it, and their records go: no one
   * can read them any more. Kept ones stay for the other sessions.
   */
  endSession(session: Session): Promise<void> {
    return this.#pool.leave(session, { deleteRecords: true });
  }

  /** After `first` (the transport's own ending), kills every process, bounded; closes the files. */
  async close(first: Promise<void> = Promise.resolve()): Promise<void> {
    const killed = first.then(() => this.manager({ seesAll: true }).killAll());
    await settlesWithin(killed, SHUTDOWN_DEADLINE_MS);
    this.#unpublish();
    await settlesWithin(this.#watch.close(), SHUTDOWN_DEADLINE_MS);
    this.store.close();
    this.#file.release();
    this.registry.close();
  }
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
