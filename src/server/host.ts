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
import { listenWatch, openShared, type Shared, watchLine } from "./shared.ts";
import { hideSecretValues } from "../environment.ts";
import { removeDeadInjections } from "../core/shell/injection.ts";
import { releaseSocketLock, sweepDeadHosts, takeSocketLock } from "../host/socket_lock.ts";
import type { WatchService } from "../watch/service.ts";

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
  const host = new Host(shared, watch, address, log, () => releaseSocketLock(address.socket, lock));
  await host.run().catch((error) => {
    // Not a host that holds its socket's lock and its port but answers no one: it leaves, and
    // the next door starts another (or says why it cannot).
    // The door shows the log's last line.
    console.error(`${(error as Error)?.stack ?? error}`);
    console.error(`portal: the host stops: ${(error as Error)?.message ?? error}`);
    Deno.exit(1);
  });
}

/** The host's state: who holds it, and how it stops. */
class Host {
  readonly #shared: Shared;
  readonly #watch: WatchService;
  readonly #address: HostAddress;
  readonly #log: Log;
  readonly #releaseLock: () => void;
  #listener: Listener | undefined;
  #inbox: FdInbox | undefined;
  #holds = 0;
  #grace: ReturnType<typeof setTimeout> | undefined;
  /** Whether only kept processes hold the host now (no caller): logged when it becomes so. */
  #keptOnly = false;
  #stopping: Promise<void> | undefined;

  constructor(
    shared: Shared,
    watch: WatchService,
    address: HostAddress,
    log: Log,
    releaseLock: () => void,
  ) {
    this.#shared = shared;
    this.#watch = watch;
    this.#address = address;
    this.#log = log;
    this.#releaseLock = releaseLock;
  }

  async run(): Promise<void> {
    onShutdown(() => this.#stop());
    this.#shared.pool.onChange(() => this.#checkIdle());
    this.#shared.remote.onChange(() => this.#checkIdle());
    this.#inbox = FdInbox.open(this.#address.socket);
    this.#listener = listenAt(this.#address.socket);
    console.error(
      `portal ${VERSION} host (pid ${Deno.pid}) serving ${this.#address.socket}; ` +
        `records database ${this.#shared.database}`,
    );
    console.error(watchLine(this.#watch));
    this.#checkIdle();
    await acceptCallers(this.#listener, (caller) => this.#serve(caller));
    await this.#stopping;
  }

  async #serve({ conn, lines, hello }: Caller): Promise<void> {
    const release = this.#hold();
    try {
      const welcome: Welcome = {
        portal: VERSION,
        pid: Deno.pid,
        database: this.#shared.dbPath,
      };
      if (hello.portal !== VERSION) {
        welcome.error = `this host is Portal ${VERSION}, and a ${hello.portal} may not use it`;
        await conn.write(encodeLine(welcome));
        return;
      }
      if (hello.role === "mcp") {
        const session = { environment: { cwd: hello.cwd, env: hello.env }, policy: hello.policy };
        const opening = { welcome, canHandOff: hello.handoff === true, inbox: this.#inbox };
        await serveMcpSession(conn, lines, opening, session, {
          shared: this.#shared,
          watch: this.#watch,
          log: this.#log,
          clientLevel: hello.logLevel,
        });
      } else if (hello.role === "attach") {
        const elsewhere = (target: string) => this.#shared.remote.ids.targetOf(target);
        await serveAttach(conn, lines, hello.target, this.#shared, welcome, elsewhere);
      } else if (hello.role === "ps") {
        const processes = [
          ...this.#shared.manager({ seesAll: true }).list(),
          ...this.#shared.remote.ids.known(),
        ];
        await conn.write(encodeLine(welcome));
        await conn.write(encodeLine({ processes }));
      }
    } catch (error) {
      // The caller went away mid-answer: nothing to tell it.
      if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
    } finally {
      release();
    }
  }

  /** Keeps the host up until the returned function is called. */
  #hold(): () => void {
    this.#holds++;
    this.#checkIdle();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holds--;
      this.#checkIdle();
    };
  }

  /** Starts the grace when nothing needs the host, and calls it off when something does. */
  #checkIdle(): void {
    const keptHere = this.#shared.pool.keepsRunning;
    const keptThere = this.#shared.remote.keepsRunning;
    const idle = this.#holds === 0 && !keptHere && !keptThere;
    // Said once each time the last caller leaves with kept processes running: why it stays.
    const keptOnly = this.#holds === 0 && !idle;
    if (keptOnly && !this.#keptOnly) {
      this.#log.stderr(
        "info",
        "host",
        `no client: the host stays for its kept processes (${
          [keptHere ? "here" : "", keptThere ? "on other machines" : ""].filter(Boolean)
            .join(" and ")
        })`,
      );
    }
    this.#keptOnly = keptOnly;
    if (!idle) {
      clearTimeout(this.#grace);
      this.#grace = undefined;
    } else if (this.#grace === undefined && this.#stopping === undefined) {
      this.#grace = setTimeout(() => {
        this.#log.stderr("info", "host", "no client and no kept process: the host exits");
        this.#stop().then(() => Deno.exit(0));
      }, HOST_GRACE_MS);
    }
  }

  /** Stops listening, kills every program, closes the files; then the socket's go, and its lock. */
  #stop(): Promise<void> {
    return this.#stopping ??= (async () => {
      clearTimeout(this.#grace);
      this.#listener?.close();
      this.#inbox?.close();
      await this.#shared.close();
      this.#releaseLock();
    })();
  }
}
