/**
 * What Linux's /proc tells about the processes and threads of a program:
 * their state and group, their children, the system call a thread is blocked
 * in and its arguments, where an fd leads, and the memory a `poll` or
 * `select` reads its fd set from. Every reader returns null (or nothing)
 * for a task that is gone, or whose files it may not read (a setuid program
 * like sudo): callers treat that as "cannot tell".
 *
 * Reading another process's `syscall` and `mem` needs ptrace rights, which a
 * parent has over its descendants: the programs Portal started.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readStat, threadsOf } from "./proc_tasks.ts";
 *
 * const self = readStat(Deno.pid);
 * if (self !== null) { // Linux
 *   assert.ok(self.threads > 1); // Deno runs worker threads
 *   assert.ok(threadsOf(Deno.pid, self).includes(Deno.pid));
 * }
 * ```
 * @module
 */
import { cString } from "../../../ffi/c_strings.ts";
import { errno, libc } from "../../../ffi/libc.ts";
import { C } from "../../../ffi/os_constants.ts";

/** A process's (or thread's) line of /proc/<pid>/stat, the fields Portal uses. */
export interface TaskStat {
  /** R running, S sleeping, D disk, T/t stopped, Z zombie, X dead, … */
  state: string;
  pgrp: number;
  threads: number;
}

/** A thread blocked in a system call: its number and its six arguments. */
export interface BlockedCall {
  nr: number;
  args: bigint[];
}

/** Shared by every read: /proc files are small, and reads are synchronous. */
const BUFFER = new Uint8Array(16 * 1024);
const decoder = new TextDecoder();

/**
 * The /proc files read lately, kept open (path → fd, the least recently read
 * first) and read again in place: a /proc file's text is made anew by each
 * read from its start, and an open costs two to five times the read (its
 * path walk and access checks), several times per check of a wait. An fd
 * names the task it was opened for: once that has ended its reads fail,
 * while the path may name a new task with the pid.
 */
const open = new Map<string, number>();
/** Fds kept open at most (a check of one program reads four or five files per thread). */
const MAX_OPEN = 64;

/**
 * Reads `path` at `offset` into `bytes` (`whole`: all of them, or it failed):
 * the bytes read, or null when it is gone or not ours to read.
 */
function readAt(path: string, bytes: Uint8Array, offset: bigint, whole = false): number | null {
  const failed = (n: number) => n < 0 || (whole && n !== bytes.length);
  const kept = open.get(path);
  if (kept !== undefined) {
    open.delete(path);
    const n = pread(kept, bytes, offset);
    if (!failed(n)) {
      open.set(path, kept);
      return n;
    }
    // Its task has ended, or exec'd (a new memory): the files of the pid are opened anew.
    libc().close(kept);
    forgetPrefix(path.slice(0, path.indexOf("/", "/proc/".length) + 1));
  }
  const fd = libc().open(cString(path), C.O_CLOEXEC); // O_RDONLY is 0
  if (fd < 0) return null;
  const n = pread(fd, bytes, offset);
  if (failed(n)) {
    libc().close(fd);
    return null;
  }
  open.set(path, fd);
  if (open.size > MAX_OPEN) {
    const [oldest, oldestFd] = open.entries().next().value!;
    libc().close(oldestFd);
    open.delete(oldest);
  }
  return n;
}

function pread(fd: number, bytes: Uint8Array, offset: bigint): number {
  return Number(libc().pread(fd, bytes, BigInt(bytes.length), offset));
}

/** Closes the files kept open for the tasks of `pids` (they ended, or nothing watches them). */
export function forgetTasks(pids: Iterable<number>): void {
  for (const pid of pids) forgetPrefix(`/proc/${pid}/`);
}

function forgetPrefix(prefix: string): void {
  for (const [path, fd] of open) {
    if (!path.startsWith(prefix)) continue;
    libc().close(fd);
    open.delete(path);
  }
}

/** A /proc file's text, or null when it is gone or not ours to read. */
function readText(path: string): string | null {
  let text = "";
  for (let offset = 0;;) {
    const n = readAt(path, BUFFER, BigInt(offset));
    if (n === null) return offset === 0 ? null : text;
    text += decoder.decode(BUFFER.subarray(0, n));
    offset += n;
    // A read that leaves room has the rest: a /proc file's text is made at once.
    if (n < BUFFER.length) return text;
  }
}

function taskPath(pid: number, tid?: number): string {
  return tid === undefined || tid === pid ? `/proc/${pid}` : `/proc/${pid}/task/${tid}`;
}

/** State, process group and thread count of a process, or of one of its threads. */
export function readStat(pid: number, tid?: number): TaskStat | null {
  const stat = readText(`${taskPath(pid, tid)}/stat`);
  if (stat === null) return null;
  // "pid (comm) state ppid pgrp session …": comm may hold spaces and ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0], pgrp: Number(fields[2]), threads: Number(fields[17]) };
}

/** The thread ids of a process (just `pid` when it has one thread). */
export function threadsOf(pid: number, stat: TaskStat): number[] {
  if (stat.threads <= 1) return [pid];
  try {
    return [...Deno.readDirSync(`/proc/${pid}/task`)].map((entry) => Number(entry.name));
  } catch {
    return [];
  }
}

/** Children of the threads `tids` of `pid` (needs CONFIG_PROC_CHILDREN; else none). */
export function childrenOf(pid: number, tids: number[]): number[] {
  return tids.flatMap((tid) =>
    (readText(`/proc/${pid}/task/${tid}/children`) ?? "").split(" ").filter(Boolean).map(Number)
  );
}

/**
 * The system call thread `tid` of `pid` is blocked in, `"running"` when it
 * runs, or null when it is in none (a fault, a stop), gone or not readable.
 */
export function syscallOf(pid: number, tid: number): BlockedCall | "running" | null {
  const text = readText(`${taskPath(pid, tid)}/syscall`);
  if (text === null) return null;
  if (text.startsWith("running")) return "running";
  const [nr, ...args] = text.trim().split(" ");
  if (nr === "-1" || args.length < 6) return null;
  return { nr: Number(nr), args: args.slice(0, 6).map((a) => BigInt(a)) };
}

/** How often the scheduler has run thread `tid` so far: it grows each time it wakes. */
export function runCount(pid: number, tid: number): number | null {
  const text = readText(`${taskPath(pid, tid)}/schedstat`);
  return text === null ? null : Number(text.split(" ")[2]);
}

/** Where fd `fd` of `pid` leads: `/dev/pts/3`, `pipe:[123]`, `socket:[456]`, … */
export function fdTarget(pid: number, fd: number): string | null {
  try {
    return Deno.readLinkSync(`/proc/${pid}/fd/${fd}`);
  } catch {
    return null;
  }
}

/** `length` bytes of `pid`'s memory at `address`, or null when unreadable. */
export function readMemory(pid: number, address: bigint, length: number): Uint8Array | null {
  if (address === 0n || length <= 0) return null;
  const bytes = new Uint8Array(length);
  return readAt(`/proc/${pid}/mem`, bytes, address, true) === null ? null : bytes;
}

/** The fds an epoll instance of `pid` watches, with the events it watches them for. */
export function epollTargets(pid: number, epfd: number): { fd: number; events: number }[] {
  const info = readText(`/proc/${pid}/fdinfo/${epfd}`) ?? "";
  return [...info.matchAll(/^tfd:\s+(\d+)\s+events:\s+([0-9a-f]+)/gm)].map((m) => ({
    fd: Number(m[1]),
    events: parseInt(m[2], 16),
  }));
}

/** Whether process `pid` runs (a signal 0 reaches it, or is refused, and it is no zombie). */
export function processRuns(pid: number): boolean {
  if (libc().kill(pid, 0) !== 0 && errno() !== C.EPERM) return false;
  // A killed server its parent has not reaped yet (a zombie) runs no more; no /proc: it may.
  try {
    return !/^\d+ \(.*\) Z/s.test(Deno.readTextFileSync(`/proc/${pid}/stat`));
  } catch {
    return true;
  }
}
