/**
 * The host's Unix sockets (its own, and fd_inbox.ts's): made 0600 in the
 * private runtime directory (a stale one, left by a host that was killed, is
 * replaced: the lock beside it says no live host owns it), and each
 * connection to its own handed over once its first line, the caller's
 * {@link Hello}, is read. A connection from a process of
 * another user (root's, say, whom no file mode keeps out) is closed before
 * a byte is read or written ({@link admitPeer}): the host serves its user only.
 * So is one from a program inside a sandbox: every policy's runs in a user
 * namespace of its own (terminal/posix/bubblewrap.ts), and a host it reached
 * would start programs outside its rules. That holds for every host of the
 * user, wherever its socket is, whichever sandbox found it.
 *
 * @module
 */
import process from "node:process";
import { libc } from "../../ffi/libc.ts";
import { C } from "../../ffi/os_constants.ts";
import { readinessLoop } from "../../ffi/readiness_loop.ts";
import { SocketConn } from "../../ffi/socket_conn.ts";
import { acceptNow, listenUnix, peerPid, peerUid } from "../../ffi/unix_socket.ts";
import { delay, withTimeout } from "../async.ts";
import { HELLO_DEADLINE_MS } from "../limits.ts";
import { connReader, type Hello, LineReader } from "./hello.ts";

/** How long accepting pauses after it failed (out of fds, say). */
const ACCEPT_PAUSE_MS = 100;

/** A connection and what its caller said first. */
export interface Caller {
  conn: Deno.Conn;
  lines: LineReader;
  hello: Hello;
}

/** Connections to a socket of the host, of its own user's processes only. */
export interface Listener {
  readonly path: string;
  /** The next admitted connection's fd; rejects once the listener is closed. */
  accept(): Promise<number>;
  close(): void;
}

/** Listens at `path` (removing what a dead host left there), owner-only. */
export function listenAt(path: string): Listener {
  try {
    Deno.removeSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  // Made owner-only from the start: no moment when another user could connect.
  const umask = process.umask(0o177);
  let fd: number;
  try {
    fd = listenUnix(path);
  } finally {
    process.umask(umask);
  }
  let closed = false;
  let wake: (() => void) | null = null;
  readinessLoop.register(fd, 0, () => wake?.());
  const readable = () =>
    new Promise<void>((resolve) => {
      wake = () => {
        wake = null;
        if (!closed) readinessLoop.setEvents(fd, 0);
        resolve();
      };
      readinessLoop.setEvents(fd, C.POLLIN);
    });
  return {
    path,
    // Taken one at a time as asked for: the rest wait in the kernel's backlog.
    async accept() {
      for (;;) {
        if (closed) throw new Deno.errors.BadResource("the host's socket is closed");
        let conn: number | "drained";
        try {
          conn = acceptNow(fd);
        } catch {
          await delay(ACCEPT_PAUSE_MS);
          continue;
        }
        if (conn === "drained") await readable();
        else if (admitPeer(conn, path)) return conn;
        else libc().close(conn);
      }
    },
    close() {
      if (closed) return;
      closed = true;
      readinessLoop.unregister(fd);
      wake?.();
    },
  };
}

/** The refusals already told in the log, per socket: one line each, however often they try. */
const refused = new Set<string>();

/**
 * Whether the process at the other end of `fd` (a connection to the host's
 * socket `path`) is this user's, outside any sandbox; the first refusal of
 * each kind is logged (the host's stderr).
 */
function admitPeer(fd: number, path: string): boolean {
  const me = process.getuid?.();
  let uid: number;
  let sameNamespace: boolean;
  try {
    uid = peerUid(fd);
    sameNamespace = inMyUserNamespace(peerPid(fd));
  } catch {
    return false;
  }
  const why = uid !== me
    ? `from user ${uid}: this host serves user ${me} only (each user has a host of their own)`
    : !sameNamespace
    ? "from a program in another user namespace: this host serves no program inside a " +
      "sandbox (a policy's programs must not start programs outside its rules)"
    : undefined;
  if (why === undefined) return true;
  if (!refused.has(`${why} ${path}`)) {
    refused.add(`${why} ${path}`);
    console.error(`portal: refused a connection to ${path} ${why}`);
  }
  return false;
}

/**
 * Whether process `pid` runs in this process's user namespace (null: the
 * OS does not say who connected, and has no policy sandbox either). One
 * whose namespace cannot be read (gone, or made unreadable) is not.
 */
function inMyUserNamespace(pid: number | null): boolean {
  if (pid === null) return true;
  try {
    return Deno.readLinkSync(`/proc/${pid}/ns/user`) === Deno.readLinkSync("/proc/self/ns/user");
  } catch {
    return false;
  }
}

/** Hands every caller that says hello in time to `serve`, until the listener closes. */
export async function acceptCallers(
  listener: Listener,
  serve: (caller: Caller) => Promise<void>,
): Promise<void> {
  for (;;) {
    let conn: Deno.Conn;
    try {
      conn = new SocketConn(await listener.accept(), listener.path);
    } catch {
      return; // Closed: the host is stopping.
    }
    void (async () => {
      const lines = new LineReader(connReader(conn));
      const hello = await withTimeout(lines.json<Hello>(), HELLO_DEADLINE_MS, undefined)
        .catch(() => undefined);
      if (hello === undefined) {
        closeQuietly(conn);
        return;
      }
      try {
        await serve({ conn, lines, hello });
      } finally {
        closeQuietly(conn);
      }
    })();
  }
}

/** Closes `conn`, which its other end may have closed already. */
export function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* closed already */ }
}
