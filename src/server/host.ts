/**
 * `portal host`: the long-lived process that holds a user's programs, their
 * terminals and screens, and one records database, for every client. A door
 * (`portal` on stdio) starts it when none answers, detached in a session of
 * its own with its stderr in a log file; it serves each connection on its
 * socket (see listener.ts) as one caller: an MCP session (mcp_session.ts),
 * `portal ps`, or `portal attach` (attach/connection.ts).
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
import { HOST_GRACE_MS } from "../limits.ts";
import { type PathFlags, withPathFlags } from "../env_vars.ts";
import { Log, type LoggingLevel } from "../mcp/logging.ts";
import { VERSION } from "../version.ts";
import { type HostAddress, hostAddress } from "../host/address.ts";
import { serveAttach } from "../host/attach/connection.ts";
import { encodeLine, type Welcome } from "../host/hello.ts";
import { FdInbox } from "../host/handoff/fd_inbox.ts";
import { acceptCallers, type Caller, listenAt, type Listener } from "../host/listener.ts";
import { serveMcpSession } from "./mcp_session.ts";
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
        const session = { environment: { cwd: hello.cwd, env: hello.env }, policy: hello.policy };
        const offer = hello.handoff === true ? inbox : undefined;
        const host = { shared, watch, log, clientLevel: hello.logLevel };
        await serveMcpSession(conn, lines, welcome, offer, session, host);
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
