/**
 * Whether a program waits for input, as the kernel says, not guessed from
 * silence: the processes of the terminal's foreground process group (pipes:
 * of the program's group) and the system call each of their threads is
 * blocked in (Linux /proc). A thread blocked in `read` on the terminal or
 * stdin pipe, or in `poll`/`select`/`epoll_wait` over a set holding it, is
 * reading; a shell in `wait4` waits for its job; anything else is busy.
 *
 * Three refinements make the answer exact enough to end a wait on:
 * - **Input in flight.** Right after a write the reader still sleeps in its
 *   old `read`: a reader counts only once nothing written to it waits unread
 *   in the kernel's queues. On a PTY a `poll` of the slave first hands the
 *   line discipline what is still on its way from the master (the kernel's
 *   worker may not have run yet), then says whether any of it is unread; on
 *   pipes FIONREAD of the stdin pipe says it (a pipe has nothing in flight).
 *   The answer is then {@link InputState.taken exact}. Where the slave cannot
 *   be reached, a reader counts once it has run since the write (its
 *   scheduler run count grew), or was not reading then; a canonical-mode line
 *   without its newline wakes nobody: it counts after
 *   {@link DELIVERY_GRACE_MS}. That guess is not exact: a reader's poll is
 *   woken by more than its input (each read of a PTY master wakes every
 *   poll on the slave), so its run count can grow before the input arrives.
 *   The run counts are taken at a write only where the queues cannot tell
 *   (a look at every thread costs as much as a check); should the slave
 *   fail to open later, a reader counts after {@link DELIVERY_GRACE_MS}.
 * - **Pauses.** A short wait (at most {@link PAUSE_MAX_MS}) is sometimes a
 *   pause on the way to something else, not a wait for the next input:
 *   - after a lone Escape: programs that read key sequences (vim, readline)
 *     take an ESC at the end of the input as the start of one and wait, with
 *     a short timeout, for the rest; only when it expires do they act on it;
 *   - after the terminal's local modes changed since the write: a program
 *     leaving (vim on `:wq`) puts the shell's modes back, waits briefly for
 *     the answers to its last questions to the terminal, then discards all
 *     unread input (TCIFLUSH) and exits. Input sent during that pause is
 *     echoed and lost; the next reader is the shell, once it has its prompt.
 *   Then a reader in a short wait counts once it has woken from two short
 *   waits it was seen in: a program pausing on its way makes at most two
 *   (after an ESC vim waits 25 ms, then its ttimeoutlen, shorter or longer),
 *   then acts; one idling in a loop of short waits makes more.
 * - **A poll that does not wait** (timeout 0) is work, not a wait.
 * - **Relays** (ssh, docker exec, telnet) poll the terminal and a socket at
 *   all times, so they say nothing about the far side: `unknown`, and the
 *   caller falls back to silence and a prompt-like line.
 * - **Secrets.** Reading with echo off in canonical mode is a password prompt.
 * - **A sandbox's own processes** (bwrap and its init, above the program
 *   under a person's policy) share the program's group but never read its
 *   input: found once, they are walked through, never looked at.
 *
 * Without /proc (macOS) the activity is always `unknown`; the line modes
 * still tell a secret prompt.
 *
 * @module
 */
import { libc } from "../../../ffi/libc.ts";
import { C } from "../../../ffi/os_constants.ts";
import { SYSCALLS } from "../../../ffi/syscall_numbers.ts";
import { lineModes, slaveHasInput, unreadBytes } from "../../../ffi/terminal_calls.ts";
import type { InputActivity, InputState } from "../terminal.ts";
import {
  childrenOf,
  fdTarget,
  forgetTasks,
  readStat,
  runCount,
  syscallOf,
  threadsOf,
} from "./proc_tasks.ts";
import { isRelayEnd, timeoutOf, watchedFds } from "./poll_sets.ts";

/**
 * How long a canonical-mode line without its end may sit in the line
 * discipline before the blocked reader counts as waiting for the rest: such
 * a line wakes no one, so no run count can prove it arrived.
 */
export const DELIVERY_GRACE_MS = 20;

/**
 * The longest wait that can be a pause (see the module doc): after an ESC,
 * the wait for the rest of a key sequence (vim's timeoutlen is 1 s,
 * readline's keyseq-timeout 0.5 s); on the way out, vim's wait for late
 * terminal answers (100 ms). Longer waits are idle.
 */
export const PAUSE_MAX_MS = 2000;

/** What the program reads its input from. */
export interface InputSource {
  /** PTY: the master, whose foreground group and modes tell the slave's. */
  master?: number;
  /** PTY: the slave's path, as /proc/<pid>/fd shows it. */
  terminal?: string;
  /** Pipes: the stdin pipe, as /proc/<pid>/fd shows it (`pipe:[inode]`). */
  pipe?: string;
  /** Pipes: this process's write end of the program's stdin. */
  input?: number;
}

/** What one thread is doing with respect to the input. */
type ThreadActivity = "reading" | "relay" | "child" | "busy" | "stopped" | "unknown";

/**
 * A thread of the group, classified; a reader's wait may have a timeout (ms),
 * and its run count is the one it had all the while it was looked at.
 */
interface Thread {
  tid: number;
  activity: ThreadActivity;
  timeoutMs?: number;
  runs?: number;
}

/** The group's readers just before a write: who was reading, and how often each had run. */
interface Mark {
  at: number;
  incompleteLine: boolean;
  /** Null where the kernel's queues say whether the input was taken (no run count needed). */
  runs: Map<number, number> | null;
  /** The input ended with ESC. */
  escape: boolean;
  /** The terminal's local modes (`c_lflag`) then; null on pipes. */
  modes: number | null;
  /** While short waits are pauses: per reader, its run count when last seen in one, and its wakes since. */
  pauses: Map<number, { runs: number; wakes: number }>;
}

/** Whether a thread waits on the input: reading it, or a relay's wait that watches it. */
const isReader = ({ activity }: { activity: ThreadActivity }) =>
  activity === "reading" || activity === "relay";

/** Bytes that end a canonical line (or the input): newline, carriage return, Ctrl+D. */
const LINE_ENDS = new Set([0x0a, 0x0d, 0x04]);
const ESC = 0x1b;

/**
 * Tells whether the program led by `leader` waits for input from `source`;
 * `wrappers`: how many processes, `leader` first, each the only child of the
 * one before, stand between it and the program (a sandbox's: 2 for bwrap).
 */
export class InputProbe {
  readonly #leader: number;
  readonly #source: InputSource;
  readonly #wrapperCount: number;
  /** The wrappers found so far, `leader` first: they never change while the program runs. */
  readonly #wrappers: number[] = [];
  #mark: Mark | null = null;
  /** The slave's queues could not be looked at once: run counts stand in from then on. */
  #probeFailed = false;
  /** The processes the last look found (their /proc files are kept open meanwhile). */
  #pids = new Set<number>();

  constructor(leader: number, source: InputSource, wrappers = 0) {
    this.#leader = leader;
    this.#source = source;
    this.#wrapperCount = wrappers;
    if (wrappers > 0) this.#wrappers.push(leader);
  }

  /** Call right before `bytes` go to the kernel: the next reader must have seen them. */
  beforeInput(bytes: Uint8Array): void {
    if (!C.PROC_STAT || bytes.length === 0) return;
    const modes = this.modes();
    this.#mark = {
      at: performance.now(),
      incompleteLine: modes?.canonical === true && !LINE_ENDS.has(bytes[bytes.length - 1]),
      runs: this.#queuesTell() ? null : this.#readerRuns(),
      escape: bytes[bytes.length - 1] === ESC,
      modes: modes?.flags ?? null,
      pauses: new Map(),
    };
  }

  /** The program has ended: the /proc files of its processes are closed. */
  close(): void {
    forgetTasks(this.#pids);
    this.#pids.clear();
  }

  /** Whether the kernel's queues can say that input waits unread (see the module doc). */
  #queuesTell(): boolean {
    const { master, input } = this.#source;
    return master !== undefined ? C.TIOCGPTPEER !== 0n && !this.#probeFailed : input !== undefined;
  }

  /** How often each reader of the group has run so far. */
  #readerRuns(): Map<number, number> {
    return new Map(this.#threads().threads.filter(isReader).map((t) => [t.tid, t.runs ?? -1]));
  }

  /** What the program is doing with its input now. */
  state(): InputState {
    if (!C.PROC_STAT) return { activity: "unknown", secret: this.#hidden(), taken: false };
    // First: is input unread? On a PTY this hands the program what is on its way (waking it,
    // or sending the signal a ^C raises), so the threads are looked at after that.
    const unread = this.#unreadInput();
    const activity = this.#activity(unread);
    return {
      activity,
      secret: activity !== "busy" && activity !== "stopped" && this.#hidden(),
      taken: unread === false,
    };
  }

  /** Whether input written to the program waits unread in the kernel; null: cannot tell. */
  #unreadInput(): boolean | null {
    const { master, input } = this.#source;
    if (master === undefined) return input === undefined ? null : unreadBytes(input) > 0;
    const unread = slaveHasInput(master);
    if (unread === null) this.#probeFailed = true;
    return unread;
  }

  /** Echo off in canonical mode: a password prompt's terminal. */
  #hidden(): boolean {
    const modes = this.modes();
    return modes !== null && !modes.echo && modes.canonical;
  }

  /** The terminal's local modes now (null on pipes, or once it is gone). */
  modes(): ReturnType<typeof lineModes> {
    return this.#source.master === undefined ? null : lineModes(this.#source.master);
  }

  #activity(unread: boolean | null): InputActivity {
    const { group, threads } = this.#threads();
    const readers = threads.filter(isReader);
    if (readers.length > 0) {
      const mark = this.#mark;
      const pausing = mark !== null &&
        (mark.escape || (mark.modes !== null && this.modes()?.flags !== mark.modes));
      if (unread === true) return "busy";
      if (!readers.some((t) => this.#sawInput(t, pausing, unread === false))) return "busy";
      this.#mark = null;
      return readers.some((t) => t.activity === "reading") ? "reading" : "unknown";
    }
    if (threads.some((t) => t.activity === "unknown")) return "unknown";
    // A stopped job of a shell is no resting state: the shell takes the terminal back.
    const stopped = group === this.#leader && threads.some((t) => t.activity === "stopped") &&
      threads.every((t) => t.activity === "stopped" || t.activity === "child");
    return stopped ? "stopped" : "busy";
  }

  /**
   * Whether reader `thread` has taken the last write (`delivered`: the kernel
   * showed nothing unread; else it has run since, or cannot have missed it),
   * and, while short waits are pauses, is not in one.
   */
  #sawInput(thread: Thread, pausing: boolean, delivered: boolean): boolean {
    const mark = this.#mark;
    if (mark === null) return true;
    const now = thread.runs ?? Infinity;
    const late = performance.now() - mark.at >= DELIVERY_GRACE_MS;
    // No run counts were taken where the queues were to tell: had they failed now, only time can.
    const before = mark.runs === null ? now : mark.runs.get(thread.tid);
    const took = delivered || before === undefined || now > before ||
      ((mark.incompleteLine || mark.runs === null) && late);
    if (!took || !pausing) return took;
    const timeoutMs = thread.timeoutMs ?? Infinity;
    if (timeoutMs > PAUSE_MAX_MS) return true;
    const seen = mark.pauses.get(thread.tid);
    if (seen === undefined) {
      mark.pauses.set(thread.tid, { runs: now, wakes: 0 });
      return false;
    }
    if (now > seen.runs) {
      seen.runs = now;
      seen.wakes++;
    }
    return seen.wakes >= 2;
  }

  /** The group that owns the input, and every live thread of it, classified. */
  #threads(): { group: number; threads: Thread[] } {
    const master = this.#source.master;
    const foreground = master === undefined ? -1 : libc().tcgetpgrp(master);
    const group = foreground > 0 ? foreground : this.#leader;
    const threads: Thread[] = [];
    const targets = new Map<string, string | null>();
    const wrappers = this.#knownWrappers();
    const seen = new Set<number>(wrappers);
    // The leader's descendants hold the group; the group's own leader is looked up
    // directly too, in case it was orphaned away from the tree. Wrappers are passed through.
    const innermost = wrappers.at(-1);
    const queue = innermost === undefined ? [this.#leader, group] : [group];
    if (innermost !== undefined) queue.push(...childrenOf(innermost, [innermost]));
    while (queue.length > 0) {
      const pid = queue.pop()!;
      if (seen.has(pid)) continue;
      seen.add(pid);
      const stat = readStat(pid);
      if (stat === null) continue;
      const tids = threadsOf(pid, stat);
      queue.push(...childrenOf(pid, tids));
      if (stat.pgrp !== group || stat.state === "Z" || stat.state === "X") continue;
      for (const tid of tids) {
        const state = tid === pid ? stat.state : readStat(pid, tid)?.state;
        if (state === undefined || state === "Z" || state === "X") continue;
        if (state === "T" || state === "t") threads.push({ tid, activity: "stopped" });
        else threads.push({ tid, ...this.#look(pid, tid, targets) });
      }
    }
    forgetTasks([...this.#pids].filter((pid) => !seen.has(pid)));
    this.#pids = seen;
    return { group, threads };
  }

  /**
   * The wrappers found so far (see the constructor): until the sandbox has
   * started its next one, the last found has no child yet.
   */
  #knownWrappers(): number[] {
    const wrappers = this.#wrappers;
    while (wrappers.length > 0 && wrappers.length < this.#wrapperCount) {
      const last = wrappers[wrappers.length - 1];
      const children = childrenOf(last, [last]);
      if (children.length !== 1) break;
      wrappers.push(children[0]);
    }
    return wrappers;
  }

  /**
   * {@link classify}, checked: a reader that ran while its call, fds and
   * memory were read may have been seen in two calls (the timeout a `pselect`
   * left behind, 3.98 s, read for the 100 ms one that followed), so it counts
   * as busy, which it was.
   */
  #look(
    pid: number,
    tid: number,
    targets: Map<string, string | null>,
  ): Omit<Thread, "tid"> {
    const before = runCount(pid, tid);
    const seen = this.#classify(pid, tid, targets);
    if (!isReader(seen)) return seen;
    const runs = runCount(pid, tid);
    if (runs !== before) return { activity: "busy" };
    return runs === null ? seen : { ...seen, runs };
  }

  /** What thread `tid` of `pid` is blocked in, as far as the input is concerned. */
  #classify(
    pid: number,
    tid: number,
    targets: Map<string, string | null>,
  ): { activity: ThreadActivity; timeoutMs?: number } {
    const call = syscallOf(pid, tid);
    if (call === "running") return { activity: "busy" };
    if (call === null) return { activity: readStat(pid, tid) === null ? "busy" : "unknown" };
    const target = (fd: number) => {
      const key = `${pid}:${fd}`;
      if (!targets.has(key)) targets.set(key, fdTarget(pid, fd));
      return targets.get(key)!;
    };
    const { nr, args } = call;
    if (SYSCALLS.reads.includes(nr)) {
      return { activity: this.#isInput(target(Number(args[0]))) ? "reading" : "busy" };
    }
    if (SYSCALLS.waits.includes(nr)) return { activity: "child" };
    const watched = watchedFds(pid, nr, args);
    if (watched === undefined) return { activity: "busy" };
    if (watched === null) return { activity: "unknown" };
    if (!watched.some((fd) => this.#isInput(target(fd)))) return { activity: "busy" };
    // A poll that does not wait is a look between two steps of work (vim checks for typeahead
    // so, dozens of times per key): seen only when the thread was preempted in it, on a busy
    // machine, where taking it for a wait ended a step before vim had acted on the input.
    const timeoutMs = timeoutOf(pid, nr, args);
    if (timeoutMs === 0) return { activity: "busy" };
    const relay = watched.some((fd) => isRelayEnd(target(fd)));
    return { activity: relay ? "relay" : "reading", timeoutMs };
  }

  #isInput(target: string | null): boolean {
    if (target === null) return false;
    const { terminal, pipe } = this.#source;
    // A program that opened /dev/tty (getpass, ssh, less) reads its controlling terminal:
    // for every process of the foreground group, that is ours.
    return target === pipe ||
      (terminal !== undefined && (target === terminal || target === "/dev/tty"));
  }
}
