/**
 * The one interface the core sees for a running program, whatever carries its
 * I/O: OS pipes or a pseudo-terminal (`spawnPipe` and `spawnPty` of
 * src/terminal/backends.ts).
 *
 * @module
 */
import { PortalError } from "../errors.ts";
import { INPUT_QUEUE_LIMIT } from "../limits.ts";
import type { Sandbox } from "./sandbox.ts";

/** Where a chunk of output came from. A terminal merges both into `stdout`. */
export type OutputSource = "stdout" | "stderr";

/** How a program ended: an exit code, or the signal that terminated it. */
export interface ExitInfo {
  /** Exit code when the program exited on its own; `null` when a signal ended it. */
  code: number | null;
  /** Name of the terminating signal (e.g. `"SIGKILL"`, `"SIGRTMIN+3"`), or `null`. */
  signal: string | null;
  /** True when that signal made the program dump core (POSIX `WCOREDUMP`). */
  coreDumped?: boolean;
}

/** What to run, and how. */
export interface SpawnOptions {
  /** Executable name (looked up in the child's PATH) or path. Never run through a shell. */
  command: string;
  args: string[];
  /** Absolute working directory; the backend refuses one that does not exist. */
  cwd: string;
  /**
   * Variables to set, over the server's own environment (the backend merges
   * them). Only these are checked: the server's own come from the OS as they
   * are (on Windows they include names like `=C:`, which a check would refuse).
   */
  env: Record<string, string>;
  /** The environment `env` goes over: by default the server's own (a host: its client's). */
  baseEnv?: Record<string, string>;
  /** Terminal size; ignored by the pipe backend. */
  cols: number;
  rows: number;
  /** The person's rules it runs under (none: the user's full rights). */
  sandbox?: Sandbox;
}

/** A console interrupt, as `CTRL_C_EVENT` and `CTRL_BREAK_EVENT` name them. */
export type InterruptKind = "ctrl_c" | "ctrl_break";

/** What an interrupt became, for the reply to the agent. */
export interface InterruptDelivery {
  /** The event's name when typed as a key (`CTRL_C_EVENT`), else the signal sent (`SIGINT`). */
  signal: string;
  /** Where it went: `"terminal input (^C)"`, `"process group"`. */
  delivered_to: string;
}

/**
 * What a program does with its input, as the OS tells: `reading` (blocked
 * reading its terminal or stdin, with everything written to it taken),
 * `busy` (running, or blocked on anything else), `stopped` (job control), or
 * `unknown` where the OS cannot tell (no /proc: macOS, Windows; relays like
 * ssh that always poll the terminal and a socket; setuid programs).
 */
export type InputActivity = "reading" | "busy" | "stopped" | "unknown";

/** {@link Terminal.inputState}'s answer. */
export interface InputState {
  activity: InputActivity;
  /** A terminal with echo off in canonical mode, not busy: a password prompt. */
  secret: boolean;
  /**
   * The kernel showed that nothing written to the program waits unread (none
   * in the terminal's queues or on its way; none in the stdin pipe). With
   * `reading`, its answer is then all in the OS already; false where that
   * cannot be seen, and a wait lets the output settle instead.
   */
  taken: boolean;
}

/** Starts a program; returns at once (events follow), or throws `PortalError`. */
export type Spawn = (opts: SpawnOptions, events: TerminalEvents) => Terminal;

/**
 * Callbacks a backend calls. `onData` gets raw bytes, in order, per source;
 * `onExit` is called exactly once, after the last `onData`. `paceFlood`,
 * asked after every 16 or 32 KiB read: true pauses the reads for as long as
 * those bytes take at `PACED_FLOOD_BYTES_PER_MS` (the program waits on its
 * full terminal or pipe, nothing is lost), so that a flood leaves the CPU to
 * the agent's other work. POSIX PTYs and pipes ask; ConPTY reads on.
 */
export interface TerminalEvents {
  onData(source: OutputSource, chunk: Uint8Array): void;
  onExit(info: ExitInfo): void;
  paceFlood?(): boolean;
}

/** A terminal's line modes (`tcgetattr`'s local modes), as far as secrets go. */
export interface LineModes {
  /** The line discipline echoes what is typed (ECHO). */
  echo: boolean;
  /** It hands the program whole, edited lines (ICANON). */
  canonical: boolean;
}

/** A program started by a backend. Methods throw `PortalError` on failure. */
export interface Terminal {
  /** OS process id of the program (its process group and, on a PTY, its session). */
  readonly pid: number;
  /**
   * Queues bytes for the program's input. Never blocks; throws when the
   * program's input is closed or the queue is full.
   */
  write(data: Uint8Array): void;
  /**
   * Ends the program's input after what was written: pipes close stdin; a
   * terminal gets Ctrl+D (VEOF), which reads as end of file at a line start
   * (a Windows console: Ctrl+Z and Enter, its end of file).
   */
  endInput(): void;
  /**
   * Resizes the terminal (TIOCSWINSZ, the program gets SIGWINCH; Windows:
   * ResizePseudoConsole). Pipe backend: throws.
   */
  resize(cols: number, rows: number): void;
  /**
   * Sends a signal (by number, for this OS) to the program's process group,
   * or on a PTY to the terminal's foreground process group.
   */
  signal(signo: number): void;
  /**
   * Interrupts the program as a keyboard would. A terminal gets the key (^C,
   * or ^\ for a break), which its line discipline turns into SIGINT or SIGQUIT
   * for the foreground job; pipes have no keyboard, so their process group
   * gets SIGINT, or for a break SIGQUIT. Windows: a console gets ^C (CTRL_C_EVENT)
   * and refuses a break; pipes refuse both (no console). Returns what to
   * report; throws as {@link write} or {@link signal} would.
   */
  interrupt(kind: InterruptKind): InterruptDelivery;
  /**
   * Ends the program and everything in its process group (on a PTY, its
   * whole session): a polite signal first, SIGKILL after `graceMs` (default
   * `KILL_GRACE_MS` of limits.ts). Windows has no polite stop a console
   * program must heed: its Job Object is terminated at once. Resolves once
   * `onExit` has been called. Once the program has exited, ends its leftovers
   * the same way.
   */
  kill(graceMs?: number): Promise<void>;
  /**
   * Whether the program has exited but processes it started live on (its
   * leftovers: `sh -c 'sleep 300 &'`), which {@link kill} would end.
   */
  hasLeftovers(): boolean;
  /** What the program does with its input now (see {@link InputState}). */
  inputState(): InputState;
  /**
   * The terminal's line modes now, whatever the program is doing (echo off
   * in canonical mode: a password prompt). Null on pipes (no line discipline)
   * and where the modes cannot be read (Windows; the program has ended).
   */
  lineModes(): LineModes | null;
  /**
   * Hands output the OS already holds to `onData` now where the backend can
   * read it synchronously (a PTY master). Returns false while output is
   * still on its way (pipes: bytes in a pipe the stream has not read yet),
   * so a wait for the program's answer must not end yet.
   */
  collectOutput(): boolean;
}

/** The error for a write that would overflow the input queue. */
export function inputQueueFull(queued: number): PortalError {
  return new PortalError(
    `The program is not reading its input: ${queued} bytes are still waiting to be written to ` +
      `it (limit ${INPUT_QUEUE_LIMIT}). Read its output to see what it is doing, wait for it ` +
      "to catch up, or interrupt it.",
    "limit",
    { limit: "INPUT_QUEUE_LIMIT", max: INPUT_QUEUE_LIMIT },
  );
}
