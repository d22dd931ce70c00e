/**
 * How an MCP session reaches its client: directly through the client's
 * stdin and stdout, which its door handed over (stdio_handoff.ts, received by
 * fd_inbox.ts), read and written nonblocking through the readiness loop (a
 * client that does not read stalls no other session); or, where the door could not hand them over, through the door's
 * socket, the door relaying the bytes. What the client sends is read only
 * as fast as the session takes it (the transport stops taking it from a
 * client that does not read its replies: stdio.ts). Either way the link ends when the
 * client's input does, or when the door's socket closes (the door was
 * killed, even by SIGKILL).
 *
 * @module
 */
import { C } from "../../../ffi/os_constants.ts";
import { libc } from "../../../ffi/libc.ts";
import { addStatusFlags } from "../../../ffi/fd_flags.ts";
import { withTimeout } from "../../async.ts";
import { HELLO_DEADLINE_MS } from "../../limits.ts";
import type { BytePort } from "../../mcp/stdio.ts";
import { readableFd, writableFd } from "../../terminal/posix/fd_streams.ts";
import type { FdInbox, StdioFds } from "./fd_inbox.ts";
import { closeQuietly } from "../listener.ts";
import { connWriter, encodeLine, type Handed, type LineReader, type Welcome } from "../hello.ts";

/** A session's way to its client. */
export interface ClientLink {
  port: BytePort;
  /** Resolves once the client's input has ended or its door has gone. */
  ended: Promise<void>;
  /** Closes what the link holds of the client's stdio (its door then sees EOF too). */
  close(): void;
}

/**
 * Welcomes the door on `conn` with `welcome` (offering the handoff on `inbox`, given when the
 * door can take one and the host has one) and returns the link; undefined when the door went
 * away.
 */
export async function openClientLink(
  conn: Deno.Conn,
  lines: LineReader,
  welcome: Welcome,
  inbox: FdInbox | undefined,
): Promise<ClientLink | undefined> {
  const token = inbox?.offer();
  const handoff = token === undefined ? {} : { handoff: { socket: inbox!.path, token } };
  await conn.write(encodeLine({ ...welcome, ...handoff }));
  if (token === undefined) return relayLink(conn, lines);
  const answer = await withTimeout(lines.json<Handed>(), HELLO_DEADLINE_MS, undefined)
    .catch(() => undefined);
  if (answer?.handed !== true) {
    inbox!.withdraw(token);
    return answer === undefined ? undefined : relayLink(conn, lines);
  }
  const fds = await inbox!.take(token);
  return fds === undefined ? undefined : fdLink(fds, doorGone(lines));
}

/** Resolves when the door's socket ends (it sends nothing more once it has handed over). */
async function doorGone(lines: LineReader): Promise<void> {
  try {
    while (!(await lines.reader.read()).done) { /* nothing to read */ }
  } catch { /* reset: gone too */ }
}

/** The client's own stdin and stdout, nonblocking on the readiness loop. */
function fdLink([input, output]: StdioFds, gone: Promise<void>): ClientLink | undefined {
  if (!addStatusFlags(input, C.O_NONBLOCK) || !addStatusFlags(output, C.O_NONBLOCK)) {
    libc().close(input);
    libc().close(output);
    return undefined;
  }
  let inputEnded!: () => void;
  const ended = Promise.race([new Promise<void>((resolve) => inputEnded = resolve), gone]);
  const reader = readableFd(input, () => {}).getReader();
  const writer = writableFd(output);
  const replies = writer.stream.getWriter();
  const port: BytePort = {
    listen(onData) {
      let stopped = false;
      // Ended once the last chunk has been handed on: what it asks is answered before the end.
      (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          if (!stopped) await onData(value);
        }
      })().catch(() => {}).finally(inputEnded);
      return () => stopped = true;
    },
    // A reply to a client that has closed its stdout is dropped: it cannot read it any more.
    write: (bytes) => replies.write(bytes).catch(() => {}),
  };
  return {
    port,
    ended,
    close() {
      reader.cancel().catch(() => {});
      writer.shut();
    },
  };
}

/** The door's socket, the door relaying its client's bytes as they are. */
function relayLink(conn: Deno.Conn, lines: LineReader): ClientLink {
  const write = connWriter(conn);
  let hungUp!: () => void;
  const ended = new Promise<void>((resolve) => hungUp = resolve);
  let closed = false;
  const port: BytePort = {
    listen(onData, onError) {
      let stopped = false;
      (async () => {
        const rest = lines.rest();
        if (rest.length > 0) await onData(rest);
        for (;;) {
          const { value, done } = await lines.reader.read();
          if (done) break;
          if (!stopped) await onData(value);
        }
      })().catch((error) => {
        // A door killed mid-write resets the connection: that is a hang-up too.
        if (!closed && !(error instanceof Deno.errors.ConnectionReset)) onError(error);
      }).finally(hungUp);
      return () => stopped = true;
    },
    // A reply to a door that has gone is dropped: its client cannot read it any more.
    write,
  };
  // The door then sees its socket end, and so does its client.
  const close = () => {
    closed = true;
    closeQuietly(conn);
  };
  return { port, ended, close };
}
