/**
 * `portal host`: the long-lived process that holds a user's programs, their
 * terminals and screens, and one records database, for every client. A door
 * (`portal` on stdio) starts it when none answers, detached in a session of
 * its own with its stderr in a log file; it serves each connection on its
 * socket (see listener.ts) as one caller: an MCP session (in its client's
 * working directory and environment), `portal ps`, or `portal attach`
 * (attach/connection.ts).
 *
 * **Lifecycle.** One host per socket: it holds a lock beside the socket
 * while it lives, so of two started at once one serves and the other leaves
 * at once. It exits by itself once no caller is connected, nothing else
 * holds it, and no kept process runs, after {@link HOST_GRACE_MS}; on
 * SIGINT, SIGTERM or SIGHUP it kills every program, closes the database and
 * exits. Killed outright (SIGKILL), its session sentinel kills every program
 * it held, kept ones included: nothing outlives the host.
 *
 * @module
 */
import { dirname } from "node:path";
import { HOST_GRACE_MS, SHUTDOWN_DEADLINE_MS } from "../limits.ts";
import { type PathFlags, withPathFlags } from "../env_vars.ts";
import { Log, type LoggingLevel } from "../mcp/logging.ts";
import { VERSION } from "../version.ts";
import { type HostAddress, hostAddress } from "../host/address.ts";
import { serveAttach } from "../host/attach/connection.ts";
import { encodeLine, type Welcome } from "../host/hello.ts";
import { FdInbox } from "../host/handoff/fd_inbox.ts";
import { acceptCallers, type Caller, listenAt, type Listener } from "../host/listener.ts";
import { openClientLink } from "../host/handoff/client_link.ts";
import { serveConnection } from "../mcp/server.ts";
import { LineTransport } from "../mcp/stdio.ts";
import { withTimeout } from "../async.ts";
import { keepStdoutForProtocol, onShutdown, reportStrayFailures } from "./process_guards.ts";
import { listenWatch, openShared, watchLine } from "./shared.ts";
import { hideSecretValues } from "../environment.ts";
import { removeDeadInjections } from "../core/shell/injection.ts";
import { releaseSocketLock, sweepDeadHosts, takeSocketLock } from "../host/socket_lock.ts";

/** Runs the host of the database the options and `env` name, until it ends; then exits. */
export async function serveHost(
  options: PathFlags & { logLevel: LoggingLevel; watchPort?: number },
  env: Record<string, string>,
): Promise<void> {
  keepStdoutForProtocol();
  // Before any program could read the environment the host was started with.
  hideSecretValues(env);
  const log = new Log(options.logLevel);
  reportStrayFailures(log);
  const paths = withPathFlags(options, env);
  let address: HostAddress;
  try {
    address = await hostAddress(paths);
  } catch (error) {
    console.error(`portal: cannot start the host: ${(error as Error).message}`);
    Deno.exit(1);
  }
  const lock = takeSocketLock(address.socket);
  if (lock === undefined) {
    console.error(`portal: a host already serves ${address.socket}; this one leaves`);
    Deno.exit(0);
  }
  sweepDeadHosts(dirname(address.socket));
  const swept = removeDeadInjections();
  if (swept > 0) {
    log.stderr(
      "info",
      "host",
      `shell integration directories left by killed servers removed: ${swept}`,
    );
  }
  const watch = listenWatch(options.watchPort ?? 0);
  const files = { ...paths, PORTAL_DB_PATH: address.database };
  const shared = openShared(files, log, watch, { adoptEarlier: true });

  // The host's state: who holds it, and how it stops.
  let listener: Listener | undefined;
  let inbox: FdInbox | undefined;
  let holds = 0;
  let grace: ReturnType<typeof setTimeout> | undefined;
  /** Whether only kept processes hold the host now (no caller): logged when it becomes so. */
  let keptOnly = false;
  let stopping: Promise<void> | undefined;

  const serve = async ({ conn, lines, hello }: Caller): Promise<void> => {
    // Each caller keeps the host up while it is served.
    holds++;
    checkIdle();
    try {
      const welcome: Welcome = {
        portal: VERSION,
        pid: Deno.pid,
        database: shared.dbPath,
      };
      if (hello.portal !== VERSION) {
        welcome.error = `this host is Portal ${VERSION}, and a ${hello.portal} may not use it`;
        await conn.write(encodeLine(welcome));
        return;
      }
      if (hello.role === "mcp") {
        // An MCP session: it reads its client's JSON-RPC lines with the same bounded line
        // reader as stdio, off the client's own stdin (handed over by the door) or the door's
        // socket (the door relaying), and answers on its stdout or the socket (client_link.ts).
        // It sees its own processes and the kept ones, starts programs in its client's working
        // directory and environment, and when the link ends (the client exits or closes stdin,
        // the door is killed, even by SIGKILL: the kernel closes the socket) its unkept
        // processes are killed; their records stay in the database.
        const session = { environment: { cwd: hello.cwd, env: hello.env }, policy: hello.policy };
        const offer = hello.handoff === true ? inbox : undefined;
        const link = await openClientLink(conn, lines, welcome, offer);
        if (link === undefined) return; // The door went away before its session began.
        const { context, scope } = shared.toolContext(shared.manager(session), watch);
        const note = (text: string) => log.log("warning", "server", text);
        // A client that leaves too much unread is ended as if it had left: its stdout closes.
        const transport = new LineTransport(link.port, note, () => link.close());
        const connection = serveConnection(transport, context, log, shared.tasks, hello.logLevel);
        await link.ended;
        // A client may close its input right after its last request (a door that relays a pipe
        // does): what it asked is answered first, as far as the door still relays (a few seconds).
        await withTimeout(transport.answered(), SHUTDOWN_DEADLINE_MS, undefined);
        await shared.endSession(session, { deleteRecords: false });
        watch.end(scope);
        await connection.close();
        link.close();
      } else if (hello.role === "attach") {
        const elsewhere = (target: string) => shared.remote.ids.targetOf(target);
        await serveAttach(conn, lines, hello.target, shared, welcome, elsewhere);
      } else if (hello.role === "ps") {
        const processes = [
          ...shared.manager({ seesAll: true }).list(),
          ...shared.remote.ids.known(),
        ];
        await conn.write(encodeLine(welcome));
        await conn.write(encodeLine({ processes }));
      }
    } catch (error) {
      // The caller went away mid-answer: nothing to tell it.
      if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
    } finally {
      holds--;
      checkIdle();
    }
  };

  /** Starts the grace when nothing needs the host, and calls it off when something does. */
  const checkIdle = (): void => {
    const keptHere = shared.pool.keepsRunning;
    const keptThere = shared.remote.keepsRunning;
    const idle = holds === 0 && !keptHere && !keptThere;
    // Said once each time the last caller leaves with kept processes running: why it stays.
    const keptOnlyNow = holds === 0 && !idle;
    if (keptOnlyNow && !keptOnly) {
      log.stderr(
        "info",
        "host",
        `no client: the host stays for its kept processes (${
          [keptHere ? "here" : "", keptThere ? "on other machines" : ""].filter(Boolean)
            .join(" and ")
        })`,
      );
    }
    keptOnly = keptOnlyNow;
    if (!idle) {
      clearTimeout(grace);
      grace = undefined;
    } else if (grace === undefined && stopping === undefined) {
      grace = setTimeout(() => {
        log.stderr("info", "host", "no client and no kept process: the host exits");
        stop().then(() => Deno.exit(0));
      }, HOST_GRACE_MS);
    }
  };

  /** Stops listening, kills every program, closes the files; then the socket's go, and its lock. */
  const stop = (): Promise<void> =>
    stopping ??= (async () => {
      clearTimeout(grace);
      listener?.close();
      inbox?.close();
      await shared.close();
      releaseSocketLock(address.socket, lock);
    })();

  try {
    onShutdown(stop);
    shared.pool.onChange(checkIdle);
    shared.remote.onChange(checkIdle);
    inbox = FdInbox.open(address.socket);
    listener = listenAt(address.socket);
    console.error(
      `portal ${VERSION} host (pid ${Deno.pid}) serving ${address.socket}; ` +
        `records database ${shared.database}`,
    );
    console.error(watchLine(watch));
    checkIdle();
    await acceptCallers(listener, serve);
    await stopping;
  } catch (error) {
    // Not a host that holds its socket's lock and its port but answers no one: it leaves, and
    // the next door starts another (or says why it cannot).
    // The door shows the log's last line.
    console.error(`${(error as Error)?.stack ?? error}`);
    console.error(`portal: the host stops: ${(error as Error)?.message ?? error}`);
    Deno.exit(1);
  }
}
