/**
 * The door's side of the stdio handoff (POSIX): once the host has welcomed
 * it, a door whose stdin and stdout are pipes or sockets sends both fds to
 * the host (SCM_RIGHTS, on the host's fd socket, with the token of its
 * welcome), and the host's MCP session reads and writes them directly: the
 * door is out of the data path and only waits for its socket to close. A
 * terminal is never handed over (the host sets O_NONBLOCK on what it gets,
 * and a terminal's open file is the person's shell's too); then, on
 * Windows, or when the handoff fails, the door relays as before.
 *
 * @module
 */
import { cString } from "../../../ffi/c_strings.ts";
import { libc } from "../../../ffi/libc.ts";
import { C } from "../../../ffi/os_constants.ts";
import { connectUnix, peerUid, sendFds } from "../../../ffi/unix_socket.ts";
import type { Handoff } from "../hello.ts";
import { FD_PASSING } from "../../platform.ts";

/** Why this process's stdin and stdout cannot be handed to the host, or undefined if they can. */
export function handoffRefusal(): string | undefined {
  if (!FD_PASSING) return "Windows";
  for (const name of ["stdin", "stdout"]) {
    let info: Deno.FileInfo;
    try {
      info = Deno.statSync(`/dev/${name}`);
    } catch {
      return `${name} is closed`;
    }
    if (!info.isFifo && !info.isSocket) {
      return `${name} is ${info.isCharDevice ? "a terminal or device" : "a file"}`;
    }
  }
  return undefined;
}

/**
 * Sends fds 0 and 1 to the host that offered `handoff`, then puts /dev/null
 * in their place (so the client's pipes end when the host closes its
 * copies). Throws, changing nothing, when they cannot be sent.
 */
export function handStdio(handoff: Handoff): void {
  const socket = connectUnix(handoff.socket);
  try {
    const uid = peerUid(socket);
    if (uid !== Deno.uid()) {
      throw new Error(`${handoff.socket} is served by user ${uid}, not by you`);
    }
    sendFds(socket, new TextEncoder().encode(handoff.token), [0, 1]);
  } finally {
    libc().close(socket);
  }
  const devNull = libc().open(cString("/dev/null"), C.O_RDWR);
  if (devNull < 0) return; // The door's copies then close when it exits, with the session.
  libc().dup2(devNull, 0);
  libc().dup2(devNull, 1);
  libc().close(devNull);
}
