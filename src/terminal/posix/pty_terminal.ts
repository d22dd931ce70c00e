/**
 * A program on a pseudo-terminal, as a state machine: output is read through
 * the shared {@link readinessLoop} until the slave side closes (EIO), input is
 * queued while the master is full, and the program has exited once both its
 * output has ended and the {@link childReaper} has reaped it.
 *
 * @module
 */
import { errno, ioctl, libc, strerror } from "../../../ffi/libc.ts";
import { C } from "../../../ffi/os_constants.ts";
import { winsize } from "../../../ffi/terminal_calls.ts";
import { readSome, writeSome } from "../../../ffi/fd_io.ts";
import { HANGUP, readinessLoop } from "../../../ffi/readiness_loop.ts";
import { delay, settlesWithin } from "../../async.ts";
import { PortalError } from "../../errors.ts";
import { KILL_GRACE_MS } from "../../limits.ts";
import { CTRL_BREAK_EVENT, CTRL_C_EVENT, signalName, SIGNALS } from "../../signals.ts";
import { checkTerminalSize } from "../launch.ts";
import { FloodPace } from "../flood_pace.ts";
import { InputQueue } from "../input_queue.ts";
import type {
  ExitInfo,
  InputState,
  InterruptDelivery,
  InterruptKind,
  LineModes,
  Terminal,
  TerminalEvents,
} from "../terminal.ts";
import { childReaper } from "./child_reaper.ts";
import { InputProbe } from "./input_state.ts";
import { PosixSession } from "./session/session.ts";

/**
 * Bytes read from one master per wake-up (four of the kernel's 4 KiB reads),
 * so one flooding PTY cannot starve the rest, and a tool call waits behind
 * short tasks (docs/decisions/2026-12-02-choices-the-figures-made.md gives the figures).
 */
const DRAIN_CAP = 16 * 1024;
/** After the child is reaped, how long to wait for EIO from a slave a stray job keeps open. */
const EIO_GRACE_MS = 300;
/** Ctrl+D, the terminal's default end-of-file character. */
const VEOF_CTRL_D = 0x04;
/** The keys of each interrupt: the terminal's default VINTR (^C) and VQUIT (^\) characters. */
const INTERRUPT_KEYS = {
  ctrl_c: { byte: 0x03, shown: "^C", event: CTRL_C_EVENT },
  ctrl_break: { byte: 0x1c, shown: "^\\", event: CTRL_BREAK_EVENT },
} as const;

/** Shared by every master: reads are synchronous, and each chunk is copied out. */
const READ_BUF = new Uint8Array(64 * 1024);

/**
 * The running program behind a master fd (O_NONBLOCK, close-on-exec) whose
 * slave it leads a session on. Owns the master and closes it.
 */
export class PtyTerminal implements Terminal {
  readonly pid: number;
  readonly #master: number;
  readonly #events: TerminalEvents;
  readonly #input = new InputQueue((chunk) => this.#writeSome(chunk));
  readonly #session: PosixSession;
  #reaped = false;
  #outputEnded = false;
  #exited = false;
  #exitInfo: ExitInfo = { code: null, signal: null };
  #graceTimer: ReturnType<typeof setTimeout> | undefined;
  /** Set while a flood's reads pause (see flood_pace.ts). */
  #pause: ReturnType<typeof setTimeout> | undefined;
  /** Asks `paceFlood` after every {@link DRAIN_CAP} read. */
  readonly #pace: FloodPace;
  #killing: Promise<void> | undefined;
  readonly #exit = Promise.withResolvers<void>();
  /** Whether the program waits for its input: see input_state.ts. */
  readonly #probe: InputProbe;

  /**
   * `slave` is the slave's path, by which the program's processes name their
   * terminal; `wrappers`: the sandbox's processes above the program (see InputProbe).
   */
  constructor(pid: number, master: number, slave: string, events: TerminalEvents, wrappers = 0) {
    this.pid = pid;
    this.#master = master;
    this.#events = events;
    this.#pace = new FloodPace(DRAIN_CAP, () => events.paceFlood?.() ?? false);
    this.#session = new PosixSession(pid);
    this.#probe = new InputProbe(pid, { master, terminal: slave }, wrappers);
    readinessLoop.register(master, C.POLLIN, (revents) => this.#onReady(revents));
    childReaper.track(pid, (exit) => this.#onReaped(exit));
  }

  write(data: Uint8Array): void {
    if (this.#reaped || this.#outputEnded) {
      throw new PortalError(
        "The process has exited, so it cannot take input. Check its output or start it again.",
        "ended",
      );
    }
    const state = this.#input.push(data);
    if (state === "closed") {
      throw new PortalError(
        "The program's terminal is closed, so it cannot take input; it is probably exiting.",
        "ended",
      );
    }
    if (state === "queued") this.#watchFor();
  }

  resize(cols: number, rows: number): void {
    checkTerminalSize(cols, rows);
    this.#checkRunning();
    if (ioctl(this.#master, C.TIOCSWINSZ, winsize(cols, rows)) !== 0) {
      throw new PortalError(`Could not resize the terminal: ${strerror(errno())}.`, "system");
    }
  }

  endInput(): void {
    this.write(new Uint8Array([VEOF_CTRL_D]));
  }

  signal(signo: number): void {
    this.#checkRunning();
    const foreground = libc().tcgetpgrp(this.#master);
    const group = foreground > 0 ? foreground : this.pid;
    if (libc().kill(-group, signo) !== 0) {
      throw new PortalError(
        `Could not send ${signalName(signo)} to process group ${group}: ${strerror(errno())}.`,
        "system",
      );
    }
  }

  interrupt(kind: InterruptKind): InterruptDelivery {
    const key = INTERRUPT_KEYS[kind];
    this.write(new Uint8Array([key.byte]));
    return { signal: key.event, delivered_to: `terminal input (${key.shown})` };
  }

  inputState(): InputState {
    if (this.#outputEnded) return { activity: "busy", secret: false, taken: false };
    // Input still queued here has not reached the program: it cannot be waiting for it.
    if (this.#input.pending) return { activity: "busy", secret: false, taken: false };
    return this.#probe.state();
  }

  lineModes(): LineModes | null {
    return this.#outputEnded ? null : this.#probe.modes();
  }

  collectOutput(): boolean {
    if (!this.#outputEnded) this.#onReady(C.POLLIN);
    return true;
  }

  kill(graceMs = KILL_GRACE_MS): Promise<void> {
    if (this.#exited) return this.#session.end(graceMs);
    this.#killing ??= this.#terminate(graceMs);
    return this.#killing;
  }

  async #terminate(graceMs: number): Promise<void> {
    const deadline = Date.now() + graceMs;
    // Stopped jobs only act on SIGHUP once continued.
    this.#signalSession(SIGNALS.SIGHUP, SIGNALS.SIGCONT);
    const exited = await settlesWithin(this.#exit.promise, graceMs);
    // Members ignoring SIGHUP can outlive the leader (and hold the terminal).
    if (!exited || this.#session.groups().length > 0) {
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
    const extra: number[] = [];
    // Once reaped, the pid (and so the group id) may belong to someone else.
    if (!this.#reaped) extra.push(this.pid);
    if (!this.#outputEnded) {
      const foreground = libc().tcgetpgrp(this.#master);
      if (foreground > 0) extra.push(foreground);
    }
    this.#session.signal(signals, extra);
  }

  hasLeftovers(): boolean {
    return this.#exited && this.#session.hasLeftovers();
  }

  #checkRunning(): void {
    if (this.#reaped || this.#outputEnded) {
      throw new PortalError("The process has exited. Start it again if you need it.", "ended");
    }
  }

  #onReady(revents: number): void {
    if (revents & (C.POLLIN | HANGUP)) {
      if (this.#drain() === "end") {
        this.#endOutput();
        return;
      }
      const pauseMs = this.#pause === undefined ? this.#pace.pause() : 0;
      if (pauseMs > 0) {
        this.#pause = setTimeout(() => {
          this.#pause = undefined;
          this.#watchFor();
        }, pauseMs);
        this.#watchFor();
      }
    }
    if ((revents & C.POLLOUT) && this.#input.flush()) this.#watchFor();
  }

  /** What the readiness loop watches the master for: output unless paused, room for queued input. */
  #watchFor(): void {
    const events = (this.#pause === undefined ? C.POLLIN : 0) |
      (this.#input.pending ? C.POLLOUT : 0);
    readinessLoop.setEvents(this.#master, events);
  }

  /**
   * Reads what the master has, up to {@link DRAIN_CAP}, coalescing reads into
   * chunks. End of output: EIO on Linux once every slave fd is closed, 0 on macOS.
   */
  #drain(): "drained" | "more" | "end" {
    let delivered = 0;
    let filled = 0;
    let state: "drained" | "more" | "end" = "more";
    while (delivered + filled < DRAIN_CAP) {
      const n = readSome(this.#master, READ_BUF.subarray(filled));
      if (typeof n !== "number") {
        state = n;
        break;
      }
      filled += n;
      if (filled === READ_BUF.length) {
        this.#events.onData("stdout", READ_BUF.slice(0, filled));
        delivered += filled;
        filled = 0;
      }
    }
    if (filled > 0) this.#events.onData("stdout", READ_BUF.slice(0, filled));
    this.#pace.read(delivered + filled);
    return state;
  }

  /** Writes as much of `chunk` as the master takes; -1 if the terminal is gone. */
  #writeSome(chunk: Uint8Array): number {
    this.#probe.beforeInput(chunk);
    const { written, error } = writeSome(this.#master, chunk);
    return error === 0 ? written : -1;
  }

  #onReaped(exit: ExitInfo): void {
    this.#reaped = true;
    this.#session.leaderReaped();
    this.#exitInfo = exit;
    if (this.#outputEnded) {
      this.#closeMaster();
      return;
    }
    this.#graceTimer = setTimeout(() => {
      this.#drain();
      this.#endOutput();
    }, EIO_GRACE_MS);
  }

  /**
   * No more output will be read. The master stays open until the program is
   * reaped: a program that closes its terminal before it exits (GNU cat
   * does) is still running, and closing the master would hang up its
   * session and kill it with SIGHUP.
   */
  #endOutput(): void {
    if (this.#outputEnded) return;
    this.#outputEnded = true;
    clearTimeout(this.#graceTimer);
    clearTimeout(this.#pause);
    this.#input.clear();
    this.#probe.close();
    if (this.#reaped) {
      this.#closeMaster();
      return;
    }
    readinessLoop.setEvents(this.#master, 0);
    childReaper.expectExit(this.pid);
  }

  /** Runs once: both the output has ended and the child was reaped. */
  #closeMaster(): void {
    readinessLoop.unregister(this.#master).then(() => {
      this.#exited = true;
      this.#exit.resolve();
      this.#events.onExit(this.#exitInfo);
    });
  }
}
