/**
 * A program on a Windows pseudo console (ConPTY), as a state machine driven
 * by the shared {@link pollLoop}. The Win32 side is a {@link ConsoleProgram}
 * (pseudo_console.ts); this module decides what happens when.
 *
 * While the program runs, every tick reads what its output pipe holds,
 * writes queued input, and checks (without waiting) whether it has exited.
 * Its end follows node-pty's order, because the console outlives the
 * program and its output pipe only ends when the console does:
 *
 * 1. The process has exited (its exit code comes from its handle). The
 *    console may still be painting the program's last output, so reading
 *    goes on until the pipe has been quiet for {@link EXIT_QUIET_MS} (or
 *    {@link EXIT_FLUSH_MAX_MS} have passed).
 * 2. `ClosePseudoConsole` runs on the pool. It ends processes still attached
 *    to the console (the hangup of a POSIX terminal), and before Windows 11
 *    24H2 it waits until the console's final output has been read, which the
 *    ticks keep doing meanwhile. The console's exit ends the output pipe.
 * 3. Once the close has returned and the output has ended, or after
 *    {@link CLOSE_DEADLINE_MS} (closing our end breaks a close that still
 *    waits), every handle is closed, the job last (ending anything the
 *    program left running), and `onExit` reports the exit code.
 *
 * @module
 */
import { PortalError } from "../../errors.ts";
import { CTRL_C_EVENT, signalName, SIGNALS } from "../../signals.ts";
import { InputQueue } from "../input_queue.ts";
import { checkTerminalSize } from "../launch.ts";
import type { ExitInfo, InputState, InterruptDelivery, InterruptKind } from "../terminal.ts";
import type { Terminal, TerminalEvents } from "../terminal.ts";
import { type Pollable, pollLoop } from "./poll_loop.ts";

/** After the program exits, output must have been quiet this long before the console is closed. */
export const EXIT_QUIET_MS = 250;
/** …or this long must have passed since the exit, for a console that keeps printing. */
export const EXIT_FLUSH_MAX_MS = 2000;
/** Longest wait, once the close has begun, for it to return and the output to end. */
export const CLOSE_DEADLINE_MS = 3000;
/** Bytes read from one console per tick, so one flooding program cannot starve the rest. */
const DRAIN_CAP = 256 * 1024;
/** Ctrl+C: with the console's default (processed) input, CTRL_C_EVENT for its processes. */
const CTRL_C = 0x03;
/** End of input on a Windows console: Ctrl+Z and Enter at the start of a line. */
const CTRL_Z_ENTER = new Uint8Array([0x1a, 0x0d]);

/** What the state machine needs from the console and the process; nothing here may block. */
export interface ConsoleProgram {
  /** OS process id of the program. */
  readonly pid: number;
  /** Up to `max` bytes the output pipe holds now: empty when none, null once it has ended. */
  read(max: number): Uint8Array | null;
  /** Writes what the input pipe takes now: the bytes taken, or -1 once it is closed. */
  write(chunk: Uint8Array): number;
  /** Resizes the console; throws an `Error` saying why it could not. */
  resize(cols: number, rows: number): void;
  /** How the program ended, once it has; null while it runs. */
  exited(): ExitInfo | null;
  /** Terminates the program's job: the program and every descendant. */
  terminate(): void;
  /** Closes the pseudo console (off the JS thread); resolves once that call returned. */
  closeConsole(): Promise<void>;
  /** Closes every handle, the job last. */
  dispose(): void;
}

/** See the module doc. */
export class ConPtyTerminal implements Terminal, Pollable {
  readonly pid: number;
  readonly #program: ConsoleProgram;
  readonly #events: TerminalEvents;
  readonly #input: InputQueue;
  #exit: ExitInfo | null = null;
  #exitSeenAt = 0;
  #lastOutputAt = 0;
  #outputEnded = false;
  #closeStartedAt: number | undefined;
  #consoleClosed = false;
  #ended = false;
  readonly #done = Promise.withResolvers<void>();

  constructor(program: ConsoleProgram, events: TerminalEvents) {
    this.pid = program.pid;
    this.#program = program;
    this.#events = events;
    this.#input = new InputQueue((chunk) => program.write(chunk));
    pollLoop.add(this);
  }

  write(data: Uint8Array): void {
    this.#checkRunning();
    const state = this.#input.push(data);
    if (state === "closed") {
      throw new PortalError(
        "The program's console is closed, so it cannot take input; it is probably exiting.",
        "ended",
      );
    }
    if (state === "queued") pollLoop.kick();
  }

  /** Ctrl+Z then Enter: what Windows console programs read as end of file at a line start. */
  endInput(): void {
    this.write(CTRL_Z_ENTER);
  }

  resize(cols: number, rows: number): void {
    checkTerminalSize(cols, rows);
    this.#checkRunning();
    try {
      this.#program.resize(cols, rows);
    } catch (error) {
      throw new PortalError(`Could not resize the console: ${(error as Error).message}.`);
    }
  }

  /**
   * Windows has no signals: SIGINT types ^C (CTRL_C_EVENT for every process
   * of the console, as the keyboard would); SIGTERM and SIGKILL terminate
   * the program's job, its whole tree; anything else is refused.
   */
  signal(signo: number): void {
    this.#checkRunning();
    if (signo === SIGNALS.SIGINT) {
      this.write(new Uint8Array([CTRL_C]));
    } else if (signo === SIGNALS.SIGTERM || signo === SIGNALS.SIGKILL) {
      this.#program.terminate();
      pollLoop.kick();
    } else {
      throw new PortalError(
        `${signalName(signo)} cannot reach a program on a Windows console: send SIGINT or ` +
          "CTRL_C_EVENT to interrupt it, SIGTERM or process_kill to end it.",
        "unsupported",
      );
    }
  }

  /** Ctrl+C is typed. No key makes a pseudo console raise CTRL_BREAK_EVENT, so it is refused. */
  interrupt(kind: InterruptKind): InterruptDelivery {
    if (kind === "ctrl_break") {
      throw new PortalError(
        "CTRL_BREAK_EVENT cannot be delivered to a program on a Windows pseudo console (no " +
          "key typed into it raises one): send CTRL_C_EVENT to interrupt it, or process_kill.",
        "unsupported",
      );
    }
    this.write(new Uint8Array([CTRL_C]));
    return { signal: CTRL_C_EVENT, delivered_to: "terminal input (^C)" };
  }

  /**
   * Terminates the program's job at once: Windows has no polite request a
   * console program must heed, so `graceMs` has nothing to wait for.
   * Resolves once `onExit` has been called.
   */
  kill(_graceMs?: number): Promise<void> {
    if (!this.#ended && this.#exit === null) {
      this.#program.terminate();
      pollLoop.kick();
    }
    return this.#done.promise;
  }

  /**
   * Windows cannot tell whether a console program reads its input: always
   * "unknown", and waits fall back to silence after a prompt-like line.
   */
  inputState(): InputState {
    return { activity: "unknown", secret: false, taken: false };
  }

  /** A console's modes cannot be read from outside: never known to hide what is typed. */
  lineModes(): null {
    return null;
  }

  /** Reads what the console's output pipe holds now (the wait's settle then sees it). */
  collectOutput(): boolean {
    if (!this.#ended) this.#readOutput(performance.now());
    return true;
  }

  /** Never: the program's job is closed when it ends, which ends what it left running. */
  hasLeftovers(): boolean {
    return false;
  }

  /** One tick: output, input, exit, and the steps of the end. */
  poll(): boolean {
    const now = performance.now();
    let busy = this.#readOutput(now);
    if (this.#input.pending) this.#input.flush();
    if (this.#exit === null) {
      this.#exit = this.#program.exited();
      if (this.#exit !== null) {
        this.#exitSeenAt = now;
        this.#input.clear();
        busy = true;
      }
    }
    if (this.#exit !== null) this.#closeDown(now);
    return busy;
  }

  #checkRunning(): void {
    if (this.#exit !== null || this.#ended) {
      throw new PortalError(
        "The process has exited, so it cannot take input or signals. Check its output or start " +
          "it again.",
        "ended",
      );
    }
  }

  #readOutput(now: number): boolean {
    if (this.#outputEnded) return false;
    let total = 0;
    while (total < DRAIN_CAP) {
      const chunk = this.#program.read(DRAIN_CAP - total);
      if (chunk === null) {
        this.#outputEnded = true;
        break;
      }
      if (chunk.length === 0) break;
      total += chunk.length;
      this.#events.onData("stdout", chunk);
    }
    if (total > 0) this.#lastOutputAt = now;
    return total > 0;
  }

  /** Steps 1 to 3 of the module doc, as far as they are due. */
  #closeDown(now: number): void {
    if (this.#closeStartedAt === undefined) {
      const quietFor = now - Math.max(this.#lastOutputAt, this.#exitSeenAt);
      const flushing = now - this.#exitSeenAt < EXIT_FLUSH_MAX_MS;
      if (!this.#outputEnded && quietFor < EXIT_QUIET_MS && flushing) return;
      this.#closeStartedAt = now;
      const closed = () => {
        this.#consoleClosed = true;
        pollLoop.kick();
      };
      this.#program.closeConsole().then(closed, closed);
      return;
    }
    const overdue = now - this.#closeStartedAt >= CLOSE_DEADLINE_MS;
    if (overdue || (this.#outputEnded && this.#consoleClosed)) this.#finish();
  }

  #finish(): void {
    this.#ended = true;
    pollLoop.remove(this);
    this.#program.dispose();
    this.#done.resolve();
    this.#events.onExit(this.#exit!);
  }
}
