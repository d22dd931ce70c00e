/**
 * `portal` as a server of its own, in one process (`--no-host`, or `--http`):
 * serves MCP on stdio, or with `--http` over Streamable HTTP; says so in one line on stderr; and on the way out (stdin closed on
 * stdio, or a shutdown signal) kills every program it started. All sessions
 * share one records database and program registry; over HTTP each session
 * has its own {@link ProcessManager} unless `--share-processes` gives them one.
 *
 * @module
 */
import process from "node:process";
import type { Session } from "../core/process/pool.ts";
import { hideSecretValues } from "../environment.ts";
import { MAX_SESSIONS, readVar, SESSION_IDLE_S, withPathFlags } from "../env_vars.ts";
import {
  keepStdoutForProtocol,
  onShutdown,
  reportStrayFailures,
} from "../server/process_guards.ts";
import { listenWatch, openShared, watchLine } from "../server/shared.ts";
import { type HttpService, type Listen, serveHttp, type SessionContext } from "../mcp/http.ts";
import { generateToken, isLoopback, RequestGuard } from "../http_guard.ts";
import { Log } from "../mcp/logging.ts";
import { serveConnection } from "../mcp/server.ts";
import { LineTransport, stdioPort } from "../mcp/stdio.ts";
import { VERSION } from "../version.ts";
import { WATCH_PATH } from "../watch/access.ts";
import type { WatchService } from "../watch/service.ts";
import type { Policy } from "../core/policy/policy.ts";
import type { Options } from "./args.ts";

/** Serves until stopped; then exits the process. */
export function serve(options: Options, env: Record<string, string>, policy: Policy): void {
  keepStdoutForProtocol();
  // Before any program could read the environment the server was started with.
  hideSecretValues(env);
  const log = new Log(options.logLevel);
  reportStrayFailures(log);
  const paths = withPathFlags(options, env);
  const watch = listenWatch(options.watchPort ?? 0);
  if (options.http) serveOverHttp(options, options.http, paths, env, log, watch, policy);
  else serveOverStdio(paths, log, watch, policy);
}

function serveOverStdio(
  paths: Record<string, string>,
  log: Log,
  watch: WatchService,
  policy: Policy,
): void {
  const shared = openShared(paths, log, watch);
  const manager = shared.manager({ policy });
  const { context } = shared.toolContext(manager, watch);
  const shutdown = onShutdown(() => shared.close());
  // The client closing our stdin is the normal way an MCP stdio server is told to stop.
  process.stdin.on("end", shutdown);
  process.stdin.on("close", shutdown);
  const note = (text: string) => log.log("warning", "server", text);
  // A client that leaves too much unread is taken for gone, as when it closes stdin.
  const transport = new LineTransport(stdioPort(), note, () => void shutdown());
  serveConnection(transport, context, log, shared.tasks);
  console.error(`portal ${VERSION} serving MCP on stdio; records database ${shared.database}`);
  console.error(watchLine(watch));
}

function serveOverHttp(
  options: Options,
  listen: Listen,
  paths: Record<string, string>,
  env: Record<string, string>,
  log: Log,
  watch: WatchService,
  policy: Policy,
): void {
  const token = env.PORTAL_TOKEN || generateToken();
  let sessions;
  try {
    // An idle time of 0: never (src/mcp/http_sessions.ts).
    sessions = { idleMs: readVar(SESSION_IDLE_S, env) * 1000, max: readVar(MAX_SESSIONS, env) };
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
      modern: () => modernContext(),
      tasks: () => shared.tasks,
      mount: { path: WATCH_PATH, handle: watch.handler(guard) },
    });
  } catch (error) {
    console.error(
      `portal: cannot listen on ${listen.hostname}:${listen.port}: ${(error as Error).message}`,
    );
    Deno.exit(1);
  }
  const shared = openShared(paths, log, watch);
  // With --share-processes every HTTP session is one session of the pool, which never ends.
  const everyone: Session = { seesAll: true, policy };
  const serverOwned: Session = { policy };
  let stopping = false;
  const openSession = (): SessionContext => {
    const manager = shared.manager(options.shareProcesses ? everyone : { policy });
    const { context, scope } = shared.toolContext(manager, watch);
    // At shutdown the records stay, as a stdio server's do; a session that ends before takes them.
    const endProcesses = () =>
      options.shareProcesses || stopping ? Promise.resolve() : shared.endSession(manager.session);
    return { context, end: () => endProcesses().finally(() => watch.end(scope)) };
  };
  // Requests of MCP 2026-07-28 come without a session: their processes are the server's, one
  // session that never ends, seen by every such request (any client with the token).
  const modernContext = () => {
    const manager = shared.manager(options.shareProcesses ? everyone : serverOwned);
    return shared.toolContext(manager, watch).context;
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
