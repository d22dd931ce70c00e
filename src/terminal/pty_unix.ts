/**
 * The pseudo-terminal backend on Linux and macOS: `openpty` + `posix_spawn`
 * (never `fork`: the runtime is multi-threaded), output through the shared
 * {@link readinessLoop}, reaping through SIGCHLD + `waitpid(pid, WNOHANG)`.
 *
 * @module
 */
import {
  addStatusFlags,
  C,
  cString,
  cStringArray,
  errno,
  ioctl,
  libc,
  setCloexec,
  strerror,
  winsize,
} from "../../ffi/libc.ts";
import { readinessLoop } from "../../ffi/readiness_loop.ts";
import { delay, settlesWithin } from "../async.ts";
import { INPUT_QUEUE_LIMIT, KILL_GRACE_MS, TERMINAL_SIZE } from "../limits.ts";
import { checkWorkingDirectory, isExecutableFile, resolveExecutable } from "./launch_checks.ts";
import { PortalError } from "../errors.ts";
import { signalName, SIGNALS } from "../signals.ts";
import {
  type ExitInfo,
  inputQueueFull,
  type SpawnOptions,
  type Terminal,
  type TerminalEvents,
} from "./terminal.ts";

/** Bytes read from one master per wake-up, so one flooding PTY cannot starve the rest. */
const DRAIN_CAP = 256 * 1024;
/** After the child is reaped, how long to wait for EIO from a slave a stray job keeps open. */
const EIO_GRACE_MS = 300;
/** Ctrl+D, the terminal's default end-of-file character. */
const VEOF_CTRL_D = 0x04;

/**
 * macOS runs posix_spawn's file actions before it makes the new session, so
 * opening the slave does not make it the controlling terminal: no Ctrl-C,
 * no job control, no /dev/tty (sudo, ssh password prompts). perl, shipped
 * with macOS, claims it (TIOCSCTTY) and then execs the program in place:
 * same pid, same environment, signals already reset by posix_spawn.
 */
const CTTY_HELPER = Deno.build.os === "darwin" ? "/usr/bin/perl" : null;
const CTTY_SCRIPT = `ioctl(STDIN, ${C.TIOCSCTTY}, 0) or die "portal: TIOCSCTTY: $!\\n"; ` +
  'my $path = shift; exec { $path } @ARGV or die "portal: exec $path: $!\\n";';

/** Shared by every master: reads are synchronous, and each chunk is copied out. */
const READ_BUF = new Uint8Array(64 * 1024);

/**
 * Starts `opts.command` on a new pseudo-terminal, as the leader of a new
 * session whose controlling terminal it is. Returns at once; output and exit
 * arrive through `events`, never before this function returns. Throws
 * {@link PortalError} if the program cannot be started.
 */
export function spawnPtyUnix(opts: SpawnOptions, events: TerminalEvents): Terminal {
  checkSize(opts.cols, opts.rows);
  checkWorkingDirectory(opts.cwd);
  const env = opts.env;
  for (const text of [opts.command, ...opts.args, ...Object.entries(env).flat()]) {
    if (text.includes("\0")) {
      throw new PortalError("Arguments and environment must not contain NUL characters.");
    }
  }
  const path = resolveExecutable(opts.command, env.PATH, opts.cwd);
  const argv = [opts.command, ...opts.args];
  const viaHelper = CTTY_HELPER !== null && isExecutableFile(CTTY_HELPER);
  const { master, slave } = openPty(opts.cols, opts.rows);
  let pid: number;
  try {
    const [exe, args] = viaHelper
      ? [CTTY_HELPER!, ["perl", "-e", CTTY_SCRIPT, path, ...argv]]
      : [path, argv];
    pid = spawnOnSlave(opts.command, exe, args, env, slave, opts.cwd);
  } catch (error) {
    libc().close(master);
    throw error;
  } finally {
    libc().close(slave);
  }
  return new PtyTerminal(pid, master, events);
}

class PtyTerminal implements Terminal {
  readonly pid: number;
  readonly #master: number;
  readonly #events: TerminalEvents;
  #queue: Uint8Array[] = [];
  #queued = 0;
  #reaped = false;
  #outputEnded = false;
  #exited = false;
  #exitInfo: ExitInfo = { code: null, signal: null };
  #masterClosed: Promise<void> = Promise.resolve();
  #graceTimer: ReturnType<typeof setTimeout> | undefined;
  #killing: Promise<void> | undefined;
  readonly #exit = Promise.withResolvers<void>();

  constructor(pid: number, master: number, events: TerminalEvents) {
    this.pid = pid;
    this.#master = master;
    this.#events = events;
    readinessLoop.register(master, C.POLLIN, (revents) => this.#onReady(revents));
    trackChild(pid, (status) => this.#onReaped(status));
  }

  write(data: Uint8Array): void {
    if (this.#reaped || this.#outputEnded) {
      throw new PortalError(
        "The process has exited, so it cannot take input. Check its output or start it again.",
      );
    }
    if (data.length === 0) return;
    if (this.#queued + data.length > INPUT_QUEUE_LIMIT) throw inputQueueFull(this.#queued);
    let rest = data;
    if (this.#queue.length === 0) {
      const written = this.#writeSome(data);
      if (written < 0) {
        throw new PortalError(
          "The program's terminal is closed, so it cannot take input; it is probably exiting.",
        );
      }
      if (written === data.length) return;
      rest = data.subarray(written);
    }
    // A copy: the caller may reuse its buffer once write() returns.
    this.#queue.push(rest.slice());
    this.#queued += rest.length;
    readinessLoop.setEvents(this.#master, C.POLLIN | C.POLLOUT);
  }

  resize(cols: number, rows: number): void {
    checkSize(cols, rows);
    this.#checkRunning();
    if (ioctl(this.#master, C.TIOCSWINSZ, winsize(cols, rows)) !== 0) {
      throw new PortalError(`Could not resize the terminal: ${strerror(errno())}.`);
    }
  }

  endInput(): void {
    this.write(new Uint8Array([VEOF_CTRL_D]));
  }

  signal(signo: number): void {
    if (!Number.isInteger(signo) || signo <= 0) {
      throw new PortalError(`Invalid signal number ${signo}.`);
    }
    this.#checkRunning();
    const foreground = libc().tcgetpgrp(this.#master);
    const group = foreground > 0 ? foreground : this.pid;
    if (libc().kill(-group, signo) !== 0) {
      throw new PortalError(
        `Could not send ${signalName(signo)} to process group ${group}: ${strerror(errno())}.`,
      );
    }
  }

  kill(graceMs = KILL_GRACE_MS): Promise<void> {
    if (this.#exited) return Promise.resolve();
    this.#killing ??= this.#terminate(graceMs);
    return this.#killing;
  }

  async #terminate(graceMs: number): Promise<void> {
    const deadline = Date.now() + graceMs;
    // Stopped jobs only act on SIGHUP once continued.
    this.#signalSession(SIGNALS.SIGHUP, SIGNALS.SIGCONT);
    const exited = await settlesWithin(this.#exit.promise, graceMs);
    // Members ignoring SIGHUP can outlive the leader (and hold the terminal).
    if (!exited || sessionGroups(this.pid).length > 0) {
      await delay(deadline - Date.now());
      this.#signalSession(SIGNALS.SIGKILL);
    }
    await this.#exit.promise;
  }

  /**
   * Sends `signals`, in order, to every process group of the session:
   * background jobs of an interactive shell have their own groups, which
   * `kill(-pid)` misses.
   */
  #signalSession(...signals: number[]): void {
    const groups = new Set(sessionGroups(this.pid));
    // Once reaped, the pid (and so the group id) may belong to someone else.
    if (!this.#reaped) groups.add(this.pid);
    if (!this.#outputEnded) {
      const foreground = libc().tcgetpgrp(this.#master);
      if (foreground > 0) groups.add(foreground);
    }
    for (const signo of signals) for (const group of groups) libc().kill(-group, signo);
  }

  #checkRunning(): void {
    if (this.#reaped || this.#outputEnded) {
      throw new PortalError("The process has exited. Start it again if you need it.");
    }
  }

  #onReady(revents: number): void {
    if (revents & (C.POLLIN | C.POLLHUP | C.POLLERR | C.POLLNVAL)) {
      if (this.#drain() === "end") {
        this.#endOutput();
        return;
      }
    }
    if (revents & C.POLLOUT) this.#flush();
  }

  /** Reads what the master has, up to {@link DRAIN_CAP}, coalescing reads into chunks. */
  #drain(): "drained" | "more" | "end" {
    const lib = libc();
    let delivered = 0;
    let filled = 0;
    let state: "drained" | "more" | "end" = "more";
    while (delivered + filled < DRAIN_CAP) {
      const n = Number(
        lib.read(this.#master, READ_BUF.subarray(filled), BigInt(READ_BUF.length - filled)),
      );
      if (n > 0) {
        filled += n;
        if (filled === READ_BUF.length) {
          this.#events.onData("stdout", READ_BUF.slice(0, filled));
          delivered += filled;
          filled = 0;
        }
        continue;
      }
      // End of output: EIO on Linux once every slave fd is closed, 0 on macOS.
      const code = n === 0 ? C.EIO : errno();
      if (code === C.EINTR) continue;
      state = code === C.EAGAIN ? "drained" : "end";
      break;
    }
    if (filled > 0) this.#events.onData("stdout", READ_BUF.slice(0, filled));
    return state;
  }

  /** Writes as much of `chunk` as the master takes; -1 if the terminal is gone. */
  #writeSome(chunk: Uint8Array): number {
    const lib = libc();
    let offset = 0;
    while (offset < chunk.length) {
      const n = Number(
        lib.write(this.#master, chunk.subarray(offset), BigInt(chunk.length - offset)),
      );
      if (n > 0) {
        offset += n;
        continue;
      }
      const code = errno();
      if (code === C.EINTR) continue;
      if (code === C.EAGAIN) break;
      return -1;
    }
    return offset;
  }

  #flush(): void {
    while (this.#queue.length > 0) {
      const head = this.#queue[0];
      const written = this.#writeSome(head);
      if (written < 0) {
        this.#queue = [];
        this.#queued = 0;
        break;
      }
      this.#queued -= written;
      if (written < head.length) {
        this.#queue[0] = head.subarray(written);
        return;
      }
      this.#queue.shift();
    }
    readinessLoop.setEvents(this.#master, C.POLLIN);
  }

  #onReaped(status: number | null): void {
    this.#reaped = true;
    this.#exitInfo = decodeStatus(status);
    if (this.#outputEnded) {
      this.#reportExit();
      return;
    }
    this.#graceTimer = setTimeout(() => {
      this.#drain();
      this.#endOutput();
    }, EIO_GRACE_MS);
  }

  /** No more output will be read: close the master (once no wait uses it). */
  #endOutput(): void {
    if (this.#outputEnded) return;
    this.#outputEnded = true;
    clearTimeout(this.#graceTimer);
    this.#queue = [];
    this.#queued = 0;
    this.#masterClosed = readinessLoop.unregister(this.#master);
    if (this.#reaped) this.#reportExit();
    else expectExit(this.pid);
  }

  /** Runs once: both the output has ended and the child was reaped. */
  #reportExit(): void {
    this.#masterClosed.then(() => {
      this.#exited = true;
      this.#exit.resolve();
      this.#events.onExit(this.#exitInfo);
    });
  }
}

function checkSize(cols: number, rows: number): void {
  const { min, max } = TERMINAL_SIZE;
  const ok = (n: number) => Number.isInteger(n) && n >= min && n <= max;
  if (!ok(cols) || !ok(rows)) {
    throw new PortalError(
      `Invalid terminal size ${cols}x${rows}: cols and rows must be whole numbers ` +
        `from ${min} to ${max}.`,
    );
  }
}

/** A master (close-on-exec, nonblocking) and its slave (close-on-exec), sized. */
function openPty(cols: number, rows: number): { master: number; slave: number } {
  const master = new Int32Array(1);
  const slave = new Int32Array(1);
  if (libc().openpty(master, slave, null, null, winsize(cols, rows)) !== 0) {
    throw new PortalError(`Could not open a pseudo-terminal: ${strerror(errno())}.`);
  }
  // openpty has no close-on-exec option: set it before anything else can spawn.
  const ok = setCloexec(master[0]) && setCloexec(slave[0]) &&
    addStatusFlags(master[0], C.O_NONBLOCK);
  if (!ok) {
    const message = strerror(errno());
    libc().close(master[0]);
    libc().close(slave[0]);
    throw new PortalError(`Could not set up the pseudo-terminal: ${message}.`);
  }
  return { master: master[0], slave: slave[0] };
}

function slavePath(slave: number): string {
  const buf = new Uint8Array(256);
  const rc = libc().ttyname_r(slave, buf, BigInt(buf.length));
  if (rc !== 0) throw new PortalError(`Could not name the pseudo-terminal: ${strerror(rc)}.`);
  return new TextDecoder().decode(buf.subarray(0, buf.indexOf(0)));
}

/**
 * Spawns `path` as a session leader with the slave as fds 0-2 (opened, not
 * inherited, so the new session acquires it as controlling terminal), the
 * signal mask emptied and every handler reset (Deno ignores SIGPIPE, which
 * children would inherit), no other fds, and `cwd`.
 */
function spawnOnSlave(
  command: string,
  path: string,
  argv: string[],
  env: Record<string, string>,
  slave: number,
  cwd: string,
): number {
  const lib = libc();
  const check = (rc: number, what: string) => {
    if (rc !== 0) throw new PortalError(`Could not start ${command}: ${what}: ${strerror(rc)}.`);
  };
  const attr = new Uint8Array(C.SIZEOF_SPAWNATTR);
  const actions = new Uint8Array(C.SIZEOF_FILE_ACTIONS);
  const noSignals = new Uint8Array(C.SIZEOF_SIGSET);
  const allSignals = new Uint8Array(C.SIZEOF_SIGSET);
  lib.sigemptyset(noSignals);
  lib.sigfillset(allSignals);
  check(lib.posix_spawnattr_init(attr), "posix_spawnattr_init");
  try {
    check(lib.posix_spawnattr_setsigmask(attr, noSignals), "setsigmask");
    check(lib.posix_spawnattr_setsigdefault(attr, allSignals), "setsigdefault");
    const flags = C.POSIX_SPAWN_SETSID | C.POSIX_SPAWN_SETSIGMASK | C.POSIX_SPAWN_SETSIGDEF |
      C.POSIX_SPAWN_CLOEXEC_DEFAULT;
    check(lib.posix_spawnattr_setflags(attr, flags), "setflags");
    check(lib.posix_spawn_file_actions_init(actions), "posix_spawn_file_actions_init");
    try {
      check(
        lib.posix_spawn_file_actions_addopen(actions, 0, cString(slavePath(slave)), C.O_RDWR, 0),
        "addopen",
      );
      check(lib.posix_spawn_file_actions_adddup2(actions, 0, 1), "adddup2");
      check(lib.posix_spawn_file_actions_adddup2(actions, 0, 2), "adddup2");
      // Everything of ours is close-on-exec already; this also covers fds a
      // native library might have opened without it. (macOS: CLOEXEC_DEFAULT.)
      if (lib.posix_spawn_file_actions_addclosefrom_np !== null) {
        check(lib.posix_spawn_file_actions_addclosefrom_np(actions, 3), "addclosefrom_np");
      }
      check(lib.posix_spawn_file_actions_addchdir_np(actions, cString(cwd)), "addchdir_np");
      const args = cStringArray(argv);
      const envp = cStringArray(Object.entries(env).map(([k, v]) => `${k}=${v}`));
      const pid = new Int32Array(1);
      const rc = lib.posix_spawn(pid, cString(path), actions, attr, args.array, envp.array);
      if (rc !== 0) throw spawnError(command, path, cwd, rc);
      return pid[0];
    } finally {
      lib.posix_spawn_file_actions_destroy(actions);
    }
  } finally {
    lib.posix_spawnattr_destroy(attr);
  }
}

function spawnError(command: string, path: string, cwd: string, code: number): PortalError {
  if (code === C.ENOEXEC) {
    return new PortalError(
      `Cannot run ${command}: ${path} is not a program this system can execute. If it is a ` +
        "script, give it a #! line or run its interpreter with the script as an argument.",
    );
  }
  if (code === C.EACCES) {
    return new PortalError(
      `Cannot run ${command}: permission denied on ${path} or on the directory ${cwd}.`,
    );
  }
  return new PortalError(
    `Cannot run ${command} (${path}) in ${cwd}: ${strerror(code)}. ` +
      "Check that the program and the directory exist.",
  );
}

function decodeStatus(status: number | null): ExitInfo {
  if (status === null) return { code: null, signal: null };
  const signo = status & 0x7f;
  return signo === 0
    ? { code: (status >> 8) & 0xff, signal: null }
    : { code: null, signal: signalName(signo) };
}

/**
 * Process groups of the session `sid` (Linux: from /proc/<pid>/stat, whose
 * 6th field is the session id). macOS offers no cheap equivalent: none.
 */
function sessionGroups(sid: number): number[] {
  if (Deno.build.os !== "linux") return [];
  sessions ??= scanSessions();
  return sessions.get(sid) ?? [];
}

/** One /proc scan serves every kill() of one synchronous run (e.g. a shutdown). */
let sessions: Map<number, number[]> | null = null;

function scanSessions(): Map<number, number[]> {
  queueMicrotask(() => sessions = null);
  const found = new Map<number, number[]>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    let stat: string;
    try {
      stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
    } catch {
      continue; // Gone meanwhile.
    }
    // "pid (comm) state ppid pgrp session ...": comm may contain spaces and ")".
    const [state, , pgrp, session] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Zombies are dead already; they only wait for their parent.
    if (state === "Z") continue;
    const groups = found.get(Number(session)) ?? [];
    groups.push(Number(pgrp));
    found.set(Number(session), groups);
  }
  return found;
}

// Reaping. Each tracked pid is waited for by pid, never with waitpid(-1),
// which would steal the children of Deno.Command. The SIGCHLD listener exists
// only while children are tracked. Deno's signal listeners do not keep the
// process alive, so a child expected to exit soon is also polled on a timer.

const tracked = new Map<number, (status: number | null) => void>();
const expected = new Set<number>();
let listening = false;
let pollTimer: ReturnType<typeof setTimeout> | undefined;
let pollDelay = 0;

function trackChild(pid: number, onReaped: (status: number | null) => void): void {
  tracked.set(pid, onReaped);
  if (!listening) {
    Deno.addSignalListener("SIGCHLD", reapTracked);
    listening = true;
  }
  // The child may have exited before the listener existed. A microtask, so
  // that no callback runs before spawnPtyUnix has returned.
  queueMicrotask(reapTracked);
}

/**
 * Polls for `pid` (tracked, its output ended) until it is reaped: SIGCHLD
 * usually comes first, but alone it would not keep the process alive.
 */
function expectExit(pid: number): void {
  expected.add(pid);
  if (pollTimer === undefined) {
    pollDelay = 1;
    pollTimer = setTimeout(pollExpected, pollDelay);
  }
}

function pollExpected(): void {
  pollTimer = undefined;
  reapTracked();
  if (expected.size === 0) return;
  pollDelay = Math.min(pollDelay * 2, 200);
  pollTimer = setTimeout(pollExpected, pollDelay);
}

function reapTracked(): void {
  const status = new Int32Array(1);
  for (const [pid, onReaped] of tracked) {
    const rc = libc().waitpid(pid, status, C.WNOHANG);
    if (rc === 0) continue;
    tracked.delete(pid);
    expected.delete(pid);
    // rc < 0 (ECHILD): someone else reaped it; the status is lost.
    onReaped(rc === pid ? status[0] : null);
  }
  if (expected.size === 0) {
    clearTimeout(pollTimer);
    pollTimer = undefined;
  }
  if (tracked.size === 0 && listening) {
    Deno.removeSignalListener("SIGCHLD", reapTracked);
    listening = false;
  }
}
