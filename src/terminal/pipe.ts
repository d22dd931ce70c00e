/**
 * The pipe backend: the program runs with stdin, stdout and stderr on OS
 * pipes, as the leader of its own process group (and session) so a signal or
 * a kill reaches everything it started. What differs per OS, starting it
 * included, comes in as a {@link PipePlatform}.
 *
 * @module
 */
import { PortalError } from "../errors.ts";
import { type ExecutableLookup, type Launch, type LaunchRules, prepareLaunch } from "./launch.ts";
import { signalName, SIGNALS } from "../signals.ts";
import { INPUT_QUEUE_LIMIT, KILL_GRACE_MS } from "../limits.ts";
import { delay } from "../async.ts";
import { FloodPace } from "./flood_pace.ts";
import {
  type ExitInfo,
  inputQueueFull,
  type InputState,
  type InterruptDelivery,
  type InterruptKind,
  type OutputSource,
  type SpawnOptions,
  type Terminal,
  type TerminalEvents,
} from "./terminal.ts";

/** A program started on pipes, as a {@link PipePlatform} hands it over. */
export interface PipeChild {
  readonly pid: number;
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  /**
   * Whether its stdout or stderr pipe holds bytes the stream has not read
   * yet (a pipe whose stream ended holds none); false where it cannot tell.
   */
  outputPending(): boolean;
  /** How it ended, once it is reaped; never rejects. */
  readonly status: Promise<ExitInfo>;
  /** Whether it waits for its stdin (Windows: never known); told of every write first. */
  readonly input: PipeInputProbe;
  /**
   * Sends `signo` to the program's whole tree (POSIX: its process group;
   * Windows: its Job Object); a tree already gone is not an error. Throws an
   * `Error` saying why it failed otherwise.
   */
  signal(signo: number): void;
  /** Whether processes it started outlive it (see `Terminal.hasLeftovers`). */
  hasLeftovers(): boolean;
  /** Ends them: a polite signal, SIGKILL after `graceMs`. */
  endLeftovers(graceMs: number): Promise<void>;
  /** Called once the program has ended and its output was read: frees what the tree held. */
  release(): void;
}

/** What the pipe backend does differently per OS; terminal/backends.ts picks one. */
export interface PipePlatform {
  findExecutable: ExecutableLookup;
  /** Runs a launch inside a person's policy, where the OS can (see {@link LaunchRules}). */
  confine?: LaunchRules["confine"];
  /**
   * Starts `launch` (its path found by `findExecutable`, its env complete), as
   * the leader of a new process tree (POSIX: a session; Windows: a Job
   * Object). Throws {@link PortalError}.
   */
  spawn(launch: Launch, opts: SpawnOptions): PipeChild;
  /** What stands for CTRL_BREAK_EVENT, pipes having no keyboard: SIGQUIT, or SIGBREAK. */
  breakSignal: string;
}

/** Tells whether a program waits for input; told of every write before it happens. */
export interface PipeInputProbe {
  beforeInput(bytes: Uint8Array): void;
  state(): InputState;
  /** The program has ended: what the probe holds open is let go. */
  close(): void;
}

/**
 * After the program exited, output still in the pipes is read until EOF; a
 * descendant that keeps a pipe open would make that wait forever, so reading
 * stops once the pipe has been silent this long.
 */
const DRAIN_GRACE_MS = 250;
/** Output read between two questions to `paceFlood`: half of Linux's default pipe. */
const PACED_BYTES = 32 * 1024;

/** Starts `opts.command` on pipes. Throws {@link PortalError} when it cannot start. */
export function spawnOnPipes(
  platform: PipePlatform,
  opts: SpawnOptions,
  events: TerminalEvents,
): Terminal {
  const { findExecutable, confine } = platform;
  const launch = prepareLaunch(opts, { pty: false, findExecutable, confine });
  return new PipeTerminal(platform.spawn(launch, opts), events, platform.breakSignal);
}

class PipeTerminal implements Terminal {
  readonly pid: number;
  #child: PipeChild;
  #stdin: WritableStreamDefaultWriter<Uint8Array>;
  #stdinOpen = true;
  /** Bytes handed to the pipe that it has not taken yet. */
  #queued = 0;
  #exited: Promise<void>;
  #running = true;
  readonly #breakSignal: string;

  constructor(child: PipeChild, events: TerminalEvents, breakSignal: string) {
    this.#child = child;
    this.#breakSignal = breakSignal;
    this.pid = child.pid;
    this.#stdin = child.stdin.getWriter();
    // A program that closes its stdin makes our pending writes fail; that is its right.
    this.#stdin.closed.catch(() => this.#stdinOpen = false);
    const status = child.status.then((s) => {
      this.#running = false;
      return s;
    });
    const exited = status.then(() => {});
    const pump = (source: OutputSource, stream: ReadableStream<Uint8Array>) =>
      drain(stream, {
        onChunk: (chunk) => events.onData(source, chunk),
        exited,
        pending: () => child.outputPending(),
        paced: () => events.paceFlood?.() ?? false,
      });
    this.#exited = Promise.all([
      status,
      pump("stdout", child.stdout),
      pump("stderr", child.stderr),
    ]).then(([s]) => {
      child.release();
      child.input.close();
      events.onExit(s);
    });
  }

  write(data: Uint8Array): void {
    this.#checkInputOpen();
    if (this.#queued + data.length > INPUT_QUEUE_LIMIT) throw inputQueueFull(this.#queued);
    this.#queued += data.length;
    this.#child.input.beforeInput(data);
    this.#stdin.write(data)
      .catch(() => this.#stdinOpen = false)
      .finally(() => this.#queued -= data.length);
  }

  endInput(): void {
    this.#checkInputOpen();
    this.#stdinOpen = false;
    this.#stdin.close().catch(() => {});
  }

  #checkInputOpen(): void {
    if (!this.#running || !this.#stdinOpen) {
      throw new PortalError(
        "The program's input is closed (it exited, closed stdin, or eof was sent); nothing " +
          "was written.",
        "ended",
      );
    }
  }

  inputState(): InputState {
    // Input still queued here has not reached the program: it cannot be waiting for it.
    if (!this.#running || this.#queued > 0) {
      return { activity: "busy", secret: false, taken: false };
    }
    return this.#child.input.state();
  }

  /** Pipes have no echo: nothing typed is shown by them. */
  lineModes(): null {
    return null;
  }

  /** Pipe output arrives through its streams: nothing can be taken early, only awaited. */
  collectOutput(): boolean {
    return !this.#child.outputPending();
  }

  resize(): void {
    throw new PortalError(
      "Resizing needs a terminal: this process runs on pipes (pty: false).",
      "unsupported",
    );
  }

  signal(signo: number): void {
    try {
      this.#child.signal(signo);
    } catch (error) {
      throw new PortalError(
        `Could not send ${signalName(signo)}: ${(error as Error).message}`,
        "system",
      );
    }
  }

  interrupt(kind: InterruptKind): InterruptDelivery {
    const name = kind === "ctrl_c" ? "SIGINT" : this.#breakSignal;
    this.signal(SIGNALS[name]);
    return { signal: name, delivered_to: "process group" };
  }

  async kill(graceMs = KILL_GRACE_MS): Promise<void> {
    if (!this.#running) return this.#child.endLeftovers(graceMs);
    this.signal(SIGNALS.SIGTERM);
    // A stopped program acts on SIGTERM only once continued.
    this.signal(SIGNALS.SIGCONT);
    const timer = setTimeout(() => this.signal(SIGNALS.SIGKILL), graceMs);
    await this.#child.status;
    clearTimeout(timer);
    // The leader is gone; whatever is left of its session dies at once.
    await this.#child.endLeftovers(0);
    await this.#exited;
  }

  hasLeftovers(): boolean {
    return !this.#running && this.#child.hasLeftovers();
  }
}

/**
 * Reads `stream` to its end, handing each chunk to `onChunk`. Once `exited`
 * resolves, a read that stays pending for {@link DRAIN_GRACE_MS} while the
 * pipes are empty (`pending` says whether they hold bytes) ends the drain:
 * the pipe is held open by a descendant, not by the program. A read already
 * pending when the program exits gets the same grace. Bytes still in a pipe
 * keep the drain going however late a busy server reads them: they are the
 * program's last output. While the program runs, `paced` is asked after
 * each {@link PACED_BYTES} read, and a pause follows when it says so (see
 * flood_pace.ts): the program waits on its full pipe meanwhile.
 *
 * Nothing per chunk hangs on the long-lived `exited` promise (one reaction is
 * attached, once), so a chunk is garbage as soon as `onChunk` returns: a race
 * against `exited` per read kept every chunk alive until the program ended.
 */
async function drain(stream: ReadableStream<Uint8Array>, hooks: {
  onChunk: (chunk: Uint8Array) => void;
  exited: Promise<void>;
  pending: () => boolean;
  paced: () => boolean;
}): Promise<void> {
  const { onChunk, exited, pending, paced } = hooks;
  const pace = new FloodPace(PACED_BYTES, paced);
  const reader = stream.getReader();
  let afterExit = false;
  let reading = false;
  let grace: ReturnType<typeof setTimeout> | undefined;
  // Cancelling the reader settles a pending read as done.
  const arm = (): void => {
    grace = setTimeout(() => pending() ? arm() : reader.cancel().catch(() => {}), DRAIN_GRACE_MS);
  };
  exited.then(() => {
    afterExit = true;
    if (reading) arm();
  });
  try {
    for (;;) {
      reading = true;
      if (afterExit) arm();
      const result = await reader.read();
      reading = false;
      clearTimeout(grace);
      if (result.done) break;
      onChunk(result.value);
      pace.read(result.value.length);
      const pauseMs = afterExit ? 0 : pace.pause();
      if (pauseMs > 0) await delay(pauseMs);
    }
  } finally {
    clearTimeout(grace);
    reader.cancel().catch(() => {});
  }
}
