/**
 * One door's connection to the host as an MCP session: the session reads its
 * client's JSON-RPC lines with the same bounded line reader as stdio, off the
 * client's own stdin (handed over by the door) or the door's socket (the door
 * relaying), and answers on its stdout or the socket (client_link.ts). The
 * session sees its own processes and the kept ones, starts programs in its
 * client's working directory and environment (sent in the door's hello),
 * and when the link ends (the client exits or closes stdin, the door is
 * killed, even by SIGKILL: the kernel closes the socket) its unkept
 * processes are killed; their records stay in the database.
 *
 * @module
 */
import { withTimeout } from "../async.ts";
import type { Session } from "../core/process/pool.ts";
import { SHUTDOWN_DEADLINE_MS } from "../limits.ts";
import type { Log, LoggingLevel } from "../mcp/logging.ts";
import { serveConnection } from "../mcp/server.ts";
import { LineTransport } from "../mcp/stdio.ts";
import { openClientLink } from "../host/handoff/client_link.ts";
import type { FdInbox } from "../host/handoff/fd_inbox.ts";
import type { LineReader, Welcome } from "../host/hello.ts";
import type { Shared } from "./shared.ts";
import type { WatchService } from "../watch/service.ts";

/**
 * Welcomes the door on `conn` (its hello already read by `lines`) and serves
 * MCP to its client until the client's input ends or the door hangs up.
 * `inbox`: where the client's stdin is handed over (undefined: the door
 * relays it).
 */
export async function serveMcpSession(
  conn: Deno.Conn,
  lines: LineReader,
  welcome: Welcome,
  inbox: FdInbox | undefined,
  session: Session,
  host: { shared: Shared; watch: WatchService; log: Log; clientLevel: LoggingLevel },
): Promise<void> {
  const { shared, watch, log, clientLevel } = host;
  const link = await openClientLink(conn, lines, welcome, inbox);
  if (link === undefined) return; // The door went away before its session began.
  const { port, ended } = link;
  const { context, scope } = shared.toolContext(shared.manager(session), watch);
  const note = (text: string) => log.log("warning", "server", text);
  // A client that leaves too much unread is ended as if it had left: its stdout closes.
  const transport = new LineTransport(port, note, () => link.close());
  const connection = serveConnection(transport, context, log, shared.tasks, clientLevel);
  await ended;
  // A client may close its input right after its last request (a door that relays a pipe
  // does): what it asked is answered first, as far as the door still relays (a few seconds).
  await withTimeout(transport.answered(), SHUTDOWN_DEADLINE_MS, undefined);
  await shared.endSession(session, { deleteRecords: false });
  watch.end(scope);
  await connection.close();
  link.close();
}
