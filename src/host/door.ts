/**
 * The door: `portal` on stdio, what a client's configuration runs. It finds
 * the host of its records database (the one `--db` or `PORTAL_DB_PATH`
 * names, else the user's), starting it when none answers, says hello (its
 * client's working directory and environment, which the programs it starts
 * inherit), and then hands its stdin and stdout to the host (POSIX pipes
 * and sockets: stdio_handoff.ts), which reads and writes them itself, or
 * else relays bytes both ways, unchanged: the client's MCP lines to the host,
 * the host's to the client. Each door is its own MCP session there. The door
 * ends when its client closes stdin (the host then kills that client's
 * unkept programs and hangs up) or when the host hangs up; killed, even by
 * SIGKILL, its socket closes and the host does the same.
 *
 * @module
 */
import type { Policy } from "../core/policy/policy.ts";
import { libc } from "../../ffi/libc.ts";
import { SocketConn } from "../../ffi/socket_conn.ts";
import { connectNow, peerUid } from "../../ffi/unix_socket.ts";
import { delay, withTimeout } from "../async.ts";
import { HOST_START_DEADLINE_MS, SHUTDOWN_DEADLINE_MS } from "../limits.ts";
import { hideSecretValues } from "../environment.ts";
import type { LoggingLevel } from "../mcp/logging.ts";
import { VERSION } from "../version.ts";
import { type HostAddress, hostAddress } from "./address.ts";
import {
  connReader,
  connWriter,
  encodeLine,
  type Handed,
  type Hello,
  LineReader,
  type Welcome,
} from "./hello.ts";
import { startHost } from "./start_host.ts";
import { handoffRefusal, handStdio } from "./handoff/stdio_handoff.ts";

/** Pause between attempts to reach a host that is starting. */
const RETRY_MS = 5;
/** How long a door that cannot serve waits for its client's first request, to answer it. */
const ANSWER_WAIT_MS = 5000;

/** A connection to the host, past the welcome. */
export interface HostConnection {
  conn: Deno.Conn;
  lines: LineReader;
  welcome: Welcome;
  address: HostAddress;
}

/**
 * Connects to the host of the database `env` names and says `hello`;
 * `start` starts one when none answers (else the result is undefined). A
 * host that hangs up before its welcome was leaving (its grace ended as the
 * door came): the door finds or starts another. Throws with a message for
 * the person when no host welcomes it within {@link HOST_START_DEADLINE_MS}.
 *
 * A host is started unless one holds the socket's lock (it is starting, or
 * stopping). One that leaves at once (another one, started at the same
 * moment, took the lock) is fine: the other one answers; once no host holds
 * the lock, another is started. One that fails says why in its log, whose
 * last line becomes the error.
 */
export async function reachHost(
  env: Record<string, string>,
  hello: Hello,
  options: { start: boolean; hostArgs?: string[] },
): Promise<HostConnection | undefined> {
  const address = await hostAddress(env);
  const deadline = Date.now() + HOST_START_DEADLINE_MS;
  const late = () =>
    new Error(
      `no host at ${address.socket} welcomed this door within ` +
        `${HOST_START_DEADLINE_MS / 1000} s (its log: ${address.log})`,
    );
  let host: Deno.ChildProcess | undefined;
  for (;;) {
    const conn = await connect(address.socket);
    if (conn) {
      const lines = new LineReader(connReader(conn));
      const welcome = await welcomeOf(conn, lines, hello, deadline);
      if (welcome !== undefined && welcome !== "gone") {
        if (welcome.error) throw new Error(welcome.error);
        return { conn, lines, welcome, address };
      }
      try {
        conn.close();
      } catch { /* the host closed it */ }
      if (welcome === undefined) throw late();
    } else if (!options.start) {
      return undefined;
    } else {
      // Here only, not on import: it brings SQLite and the shell hooks, which a door that finds
      // its host running never needs.
      const { inUse } = await import("../core/store/database_file.ts");
      if (!host && !inUse(address.socket)) {
        const hostEnv = { ...env, PORTAL_DB_PATH: address.database };
        host = startHost(address, hostEnv, options.hostArgs ?? []);
      }
      const status = await withTimeout(
        host?.status ?? Promise.resolve(undefined),
        RETRY_MS,
        undefined,
      );
      if (status && !status.success) throw new HostFailed(address.log);
      if (status) host = undefined;
    }
    if (Date.now() > deadline) throw late();
  }
}

/**
 * Says `hello` on `conn` and reads the host's welcome: "gone" if the host
 * hung up first, undefined if none came by `deadline`.
 */
async function welcomeOf(
  conn: Deno.Conn,
  lines: LineReader,
  hello: Hello,
  deadline: number,
): Promise<Welcome | "gone" | undefined> {
  try {
    await conn.write(encodeLine(hello));
    return await withTimeout(lines.json<Welcome>(), Math.max(0, deadline - Date.now()), undefined);
  } catch (error) {
    if (error instanceof SyntaxError) throw error;
    return "gone";
  }
}

/** Relays stdio to the host until either side ends; then exits. */
export async function door(
  env: Record<string, string>,
  options: { logLevel: LoggingLevel; watchPort?: number },
  policy: Policy,
): Promise<void> {
  // Its own start environment is readable by the user's programs too (/proc): the secrets'
  // values go to the host in the hello only.
  hideSecretValues(env);
  let refusal = handoffRefusal();
  let host: HostConnection;
  try {
    const { logLevel, watchPort } = options;
    const handoff = refusal === undefined;
    const hello: Hello = {
      portal: VERSION,
      role: "mcp",
      cwd: Deno.cwd(),
      env,
      logLevel,
      handoff,
      ...policy.file ? { policy } : {},
    };
    // What a host it starts takes from this door's flags (a running one keeps its own).
    const hostArgs = ["--log-level", logLevel];
    if (watchPort !== undefined) hostArgs.push("--watch-port", String(watchPort));
    host = (await reachHost(env, hello, { start: true, hostArgs }))!;
  } catch (error) {
    const message = error instanceof HostFailed
      ? error.message
      : `portal: cannot reach the Portal host: ${(error as Error).message}. --no-host runs ` +
        "Portal in this process instead.";
    console.error(message);
    await answerWithError(message);
    Deno.exit(1);
  }
  const { conn, lines, welcome, address } = host;
  if (welcome.handoff) {
    try {
      handStdio(welcome.handoff);
    } catch (error) {
      refusal = `the handoff failed: ${(error as Error).message}`;
    }
    await conn.write(encodeLine({ handed: refusal === undefined } satisfies Handed));
  } else refusal ??= "the host takes no fds";
  console.error(
    `portal ${VERSION} serving MCP on stdio through its host (pid ${welcome.pid}, ` +
      `${address.socket}), ` +
      (refusal === undefined
        ? "which reads stdin and writes stdout itself"
        : `relaying stdin and stdout (${refusal})`) +
      `; records database ${welcome.database}`,
  );
  if (refusal === undefined) {
    // Out of the data path: the host hangs up when the session ends, or when it dies.
    while (!(await lines.reader.read().catch(() => ({ done: true }))).done) { /* nothing */ }
    Deno.exit(0);
  }
  const toClient = (async () => {
    const stdout = Deno.stdout.writable.getWriter();
    const rest = lines.rest();
    if (rest.length > 0) await stdout.write(rest);
    for (;;) {
      const { value, done } = await lines.reader.read();
      if (done) return;
      await stdout.write(value);
    }
  })();
  // stdin's end closes our half of the socket: the host answers what is asked, ends the
  // session, then hangs up.
  const toHost = (async () => {
    const write = connWriter(conn);
    const buffer = new Uint8Array(64 * 1024);
    for (let n; (n = await Deno.stdin.read(buffer)) !== null;) {
      await write(buffer.slice(0, n));
    }
    await (conn as Deno.UnixConn).closeWrite();
  })();
  await Promise.race([
    toClient.catch(() => {}),
    toHost.then(
      () => withTimeout(toClient, SHUTDOWN_DEADLINE_MS + 1000, undefined),
      () => {},
    ),
  ]);
  Deno.exit(0);
}

/**
 * Answers the client's first request (its `initialize`) with `message` as a
 * JSON-RPC error, so that the client shows why there is no server, not just
 * that it went away; gives up after {@link ANSWER_WAIT_MS} or at the end of stdin.
 */
async function answerWithError(message: string): Promise<void> {
  const lines = new LineReader(Deno.stdin.readable.getReader());
  const request = await withTimeout(
    lines.json<{ id?: unknown }>().catch(() => undefined),
    ANSWER_WAIT_MS,
    undefined,
  );
  if (request?.id === undefined) return;
  const error = { code: -32603, message };
  await Deno.stdout.write(encodeLine({ jsonrpc: "2.0", id: request.id, error })).catch(() => {});
}

/**
 * A connection to `socket`, or undefined when no host listens there. The
 * process listening must be this user's, asked of the kernel before a byte
 * is sent: a socket put in the host's place by someone else gets nothing of
 * the door's (its client's environment, secrets included, or its MCP).
 */
async function connect(socket: string): Promise<Deno.Conn | undefined> {
  const deadline = Date.now() + HOST_START_DEADLINE_MS;
  for (;;) {
    const fd = connectNow(socket);
    if (fd === "absent") return undefined;
    if (fd === "busy") {
      // Its backlog is full: the host is accepting, just not that fast.
      if (Date.now() > deadline) throw new Error(`the host at ${socket} accepts no connection`);
      await delay(RETRY_MS);
      continue;
    }
    const uid = peerUid(fd);
    const me = Deno.uid();
    if (uid === me) return new SocketConn(fd, socket);
    libc().close(fd);
    throw new Error(
      `${socket} is served by a process of user ${uid}, not by you (user ${me}); nothing was ` +
        "sent to it. Remove it if it is not meant to be there, or set XDG_RUNTIME_DIR to a " +
        "directory of your own",
    );
  }
}

/** A host that exited at start: its message is the last line of its log. */
class HostFailed extends Error {
  constructor(log: string) {
    let last = "";
    try {
      last = Deno.readTextFileSync(log).trimEnd().split("\n").at(-1) ?? "";
    } catch { /* no log */ }
    super(last.startsWith("portal: ") ? last : `portal: the host failed (see ${log}): ${last}`);
  }
}
