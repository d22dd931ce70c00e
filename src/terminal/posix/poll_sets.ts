/**
 * What a thread blocked in `poll`, `select` or `epoll_wait` waits on (Linux
 * /proc): the fds it watches for input, read from its memory or its epoll's
 * fdinfo, and the call's timeout. And whether such a wait is a relay's: a
 * program that polls its terminal together with a socket (ssh, docker exec,
 * telnet) or a PTY master (script, `sudo` with `use_pty`, asciinema,
 * unbuffer, tmux and screen's servers) passes the input on to a program the
 * kernel shows nothing of from here, so its wait says nothing about whether
 * that program is ready.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isRelayEnd } from "./poll_sets.ts";
 *
 * assert.ok(isRelayEnd("socket:[4242]"));
 * assert.ok(isRelayEnd("/dev/ptmx"));
 * assert.ok(!isRelayEnd("/dev/pts/3"));
 * assert.ok(!isRelayEnd("pipe:[77]"));
 * ```
 * @module
 */
import { SYSCALLS } from "../../../ffi/syscall_numbers.ts";
import { epollTargets, readMemory } from "./proc_tasks.ts";

const POLLFD_SIZE = 8;
/** Input events a poll or epoll can wait for: POLLIN | POLLPRI | POLLRDNORM (EPOLL* alike). */
const INPUT_EVENTS = 0x1 | 0x2 | 0x40;
/** More fds than any program polls; bounds what is read from its memory. */
const MAX_WATCHED_FDS = 4096;

/**
 * Whether an fd's target (as /proc/<pid>/fd shows it) is the near end of a
 * relay: a socket, or a PTY master (`/dev/ptmx`, or a devpts instance's own
 * `ptmx`), whose far side is another program's terminal.
 */
export function isRelayEnd(target: string | null): boolean {
  return target !== null &&
    (target.startsWith("socket:") || target === "/dev/ptmx" || target.endsWith("/pts/ptmx"));
}

/**
 * The fds a poll, select or epoll wait (system call `nr`, with `args`) of
 * `pid` watches for input; undefined for any other call, null when the set
 * cannot be read.
 */
export function watchedFds(pid: number, nr: number, args: bigint[]): number[] | null | undefined {
  if (SYSCALLS.polls.includes(nr)) {
    const count = Math.min(Number(args[1]), MAX_WATCHED_FDS);
    const bytes = readMemory(pid, args[0], count * POLLFD_SIZE);
    if (bytes === null) return null;
    const view = new DataView(bytes.buffer);
    const fds: number[] = [];
    for (let i = 0; i < count; i++) {
      const fd = view.getInt32(i * POLLFD_SIZE, true);
      if (fd >= 0 && view.getInt16(i * POLLFD_SIZE + 4, true) & INPUT_EVENTS) fds.push(fd);
    }
    return fds;
  }
  if (SYSCALLS.selects.includes(nr)) {
    const count = Math.min(Number(args[0]), MAX_WATCHED_FDS);
    if (args[1] === 0n) return [];
    const bytes = readMemory(pid, args[1], Math.ceil(count / 8));
    if (bytes === null) return null;
    const fds: number[] = [];
    for (let fd = 0; fd < count; fd++) if (bytes[fd >> 3] & (1 << (fd & 7))) fds.push(fd);
    return fds;
  }
  if (SYSCALLS.epolls.includes(nr)) {
    return epollTargets(pid, Number(args[0]))
      .filter((t) => t.events & INPUT_EVENTS)
      .map((t) => t.fd);
  }
  return undefined;
}

/**
 * The timeout of a poll, select or epoll wait of `pid`, in milliseconds
 * (Infinity: none). A pointer's struct is read from the program's memory:
 * while the call waits, it still holds what was asked for.
 */
export function timeoutOf(pid: number, nr: number, args: bigint[]): number {
  const at = SYSCALLS.timeouts[nr];
  if (at === undefined) return Infinity;
  const value = args[at.arg];
  if (at.unit === "ms") {
    const ms = Number(BigInt.asIntN(32, value));
    return ms < 0 ? Infinity : ms;
  }
  if (value === 0n) return Infinity;
  const bytes = readMemory(pid, value, 16);
  if (bytes === null) return Infinity;
  const view = new DataView(bytes.buffer);
  const fraction = Number(view.getBigInt64(8, true));
  return Number(view.getBigInt64(0, true)) * 1000 +
    fraction / (at.unit === "timeval" ? 1000 : 1_000_000);
}
