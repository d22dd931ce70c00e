/**
 * The pipe backend: the program runs with stdin, stdout and stderr on OS
 * pipes (`Deno.Command`), as the leader of its own process group so a signal
 * or a kill reaches everything it started. What differs per OS comes in as a
 * {@link PipePlatform}.
 *
 * @module
 */
import { PortalError } from "../errors.ts";
import { type ExecutableLookup, prepareLaunch } from "./launch.ts";
import { signalName, SIGNALS } from "../signals.ts";
import { withTimeout } from "../async.ts";
import { INPUT_QUEUE_LIMIT, KILL_GRACE_MS } from "../limits.ts";
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

/** What the pipe backend does differently per OS; src/platform.ts picks one. */
export interface PipePlatform {
  findExecutable: ExecutableLookup;
  /**
   * Sends `signo` to the process group led by `pid`; a group that is already
   * gone is not an error. Throws an `Error` saying why it failed otherwise.
   */
  signalGroup(pid: number, signo: number): void;
  /** What stands for CTRL_BREAK_EVENT, pipes having no keyboard: SIGQUIT, or SIGBREAK. */
  breakSignal: string;
  /** Starts watching whether the program `pid`, just started, waits for its stdin. */
  watchInput(pid: number): InputWatcher;
}

/** Tells whether a program waits for input; told of every write before it happens. */
export interface InputWatcher {
  beforeInput(bytes: Uint8Array): void;
  state(): InputState;
  /** Whether the program's stdout or stderr pipe holds bytes not read yet. */
  outputPending(): boolean;
}

/**
 * After the program exited, output still in the pipes is read until EOF; a
 * descendant that keeps a pipe open would make that wait forever, so reading
 * stops once the pipe has been silent this long.
 */
const DRAIN_GRACE_MS = 250;

/** Starts `opts.command` on pipes. Throws {@link PortalError} when it cannot start. */
export function spawnOnPipes(
  platform: PipePlatform,
  opts: SpawnOptions,
  events: TerminalEvents,
): Terminal {
  const { findExecutable } = platform;
  const { path, env } = prepareLaunch(opts, { pty: false, findExecutable });
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(path, {
      args: opts.args,
      cwd: opts.cwd,
      env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      // A new process group (and session) led by the child: signals go to -pid.
      detached: true,
    }).spawn();
  } catch (error) {
    throw spawnError(opts.command, error);
  }
  return new PipeTerminal(child, events, platform);
}

class PipeTerminal implements Terminal {
  readonly pid: number;
  #child: Deno.ChildProcess;
  #stdin: WritableStreamDefaultWriter<Uint8Array>;
  #stdinOpen = true;
  /** Bytes handed to the pipe that it has not taken yet. */
  #queued = 0;
  #exited: Promise<void>;
  #running = true;
  readonly #platform: PipePlatform;
  readonly #input: InputWatcher;

  constructor(child: Deno.ChildProcess, events: TerminalEvents, platform: PipePlatform) {
    this.#child = child;
    this.#platform = platform;
    this.pid = child.pid;
    this.#input = platform.watchInput(child.pid);
    this.#stdin = child.stdin.getWriter();
    // A program that closes its stdin makes our pending writes fail; that is its right.
    this.#stdin.closed.catch(() => this.#stdinOpen = false);
    const status = child.status.then((s) => {
      this.#running = false;
      return s;
    });
    const exited = status.then(() => {});
    const pump = (source: OutputSource, stream: ReadableStream<Uint8Array>) =>
      drain(stream, (chunk) => events.onData(source, chunk), exited);
    this.#exited = Promise.all([
      status,
      pump("stdout", child.stdout),
      pump("stderr", child.stderr),
    ]).then(([s]) => events.onExit(exitInfo(s)));
  }

  write(data: Uint8Array): void {
    this.#checkInputOpen();
    if (this.#queued + data.length > INPUT_QUEUE_LIMIT) throw inputQueueFull(this.#queued);
    this.#queued += data.length;
    this.#input.beforeInput(data);
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
      );
    }
  }

  inputState(): InputState {
    // Input still queued here has not reached the program: it cannot be waiting for it.
    if (!this.#running || this.#queued > 0) return { activity: "busy", secret: false };
    return this.#input.state();
  }

  /** Pipe output arrives through its streams: nothing can be taken early, only awaited. */
  collectOutput(): boolean {
    return !this.#input.outputPending();
  }

  resize(): void {
    throw new PortalError("Resizing needs a terminal: this process runs on pipes (pty: false).");
  }

  signal(signo: number): void {
    try {
      this.#platform.signalGroup(this.pid, signo);
    } catch (error) {
      throw new PortalError(`Could not send ${signalName(signo)}: ${(error as Error).message}`);
    }
  }

  interrupt(kind: InterruptKind): InterruptDelivery {
    const name = kind === "ctrl_c" ? "SIGINT" : this.#platform.breakSignal;
    this.signal(SIGNALS[name]);
    return { signal: name, delivered_to: "process group" };
  }

  async kill(graceMs = KILL_GRACE_MS): Promise<void> {
    if (this.#running) {
      this.signal(SIGNALS.SIGTERM);
      const timer = setTimeout(() => this.signal(SIGNALS.SIGKILL), graceMs);
      await this.#child.status;
      // The leader is gone; SIGKILL whatever is left in its group at once.
      clearTimeout(timer);
      this.signal(SIGNALS.SIGKILL);
    }
    await this.#exited;
  }
}

/**
 * Reads `stream` to its end, handing each chunk to `onChunk`. Once `exited`
 * resolves, a read that stays pending for {@link DRAIN_GRACE_MS} ends the
 * drain (the pipe is held open by a descendant, not by the program); a read
 * already pending when the program exits gets the same grace.
 */
async function drain(
  stream: ReadableStream<Uint8Array>,
  onChunk: (chunk: Uint8Array) => void,
  exited: Promise<void>,
): Promise<void> {
  const reader = stream.getReader();
  for (;;) {
    const read = reader.read();
    const result = await Promise.race([
      read,
      exited.then(() => withTimeout(read, DRAIN_GRACE_MS, undefined)),
    ]);
    if (result === undefined || result.done) break;
    onChunk(result.value);
  }
  reader.cancel().catch(() => {});
}

function exitInfo(status: Deno.CommandStatus): ExitInfo {
  return status.signal
    ? { code: null, signal: status.signal }
    : { code: status.code, signal: null };
}

function spawnError(command: string, error: unknown): PortalError {
  if (error instanceof Deno.errors.NotFound) {
    return new PortalError(
      `Command not found: "${command}". Give an executable on PATH or an absolute path; ` +
        "commands run directly, not through a shell (for pipes or globbing, start sh -c '…').",
    );
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return new PortalError(`Permission denied running "${command}": is it executable?`);
  }
  return new PortalError(`Could not start "${command}": ${(error as Error).message}`);
}
