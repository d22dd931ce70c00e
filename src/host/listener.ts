/**
 * The host's Unix socket: made 0600 in the private runtime directory (a
 * stale one, left by a host that was killed, is replaced: the lock beside it
 * says no live host owns it), and each connection handed over once its first
 * line, the caller's {@link Hello}, is read.
 *
 * @module
 */
import process from "node:process";
import { withTimeout } from "../async.ts";
import { HELLO_DEADLINE_MS } from "../limits.ts";
import { connReader, type Hello, LineReader } from "./hello.ts";

/** A connection and what its caller said first. */
export interface Caller {
  conn: Deno.Conn;
  lines: LineReader;
  hello: Hello;
}

/** Listens at `path` (removing what a dead host left there), owner-only. */
export function listenAt(path: string): Deno.Listener {
  try {
    Deno.removeSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  // Made owner-only from the start: no moment when another user could connect.
  const umask = process.umask(0o177);
  try {
    return Deno.listen({ transport: "unix", path });
  } finally {
    process.umask(umask);
  }
}

/** Hands every caller that says hello in time to `serve`, until the listener closes. */
export async function acceptCallers(
  listener: Deno.Listener,
  serve: (caller: Caller) => Promise<void>,
): Promise<void> {
  for (;;) {
    let conn: Deno.Conn;
    try {
      conn = await listener.accept();
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
