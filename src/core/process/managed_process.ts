/**
 * One program Portal started, and everything that belongs to it: its
 * terminal (pipes or a PTY), its screen (PTY only), its records and the
 * `process_read_new` cursors, and its place in the lifecycle
 * `running → exited | killed`. What goes to it is its {@link ProcessInput}
 * (`input`), what it wrote is read through its {@link ProcessOutput}
 * (`output`), and watch pages see it as a {@link WatchedProcess}
 * (`watched`). Every JSON view of a process comes from
 * {@link ManagedProcess.describe}.
 *
 * @module
 */
import { QUIET_MS } from "../../limits.ts";
import type { ExitInfo, InputState, OutputSource, Terminal } from "../../terminal/terminal.ts";
import { Secrets } from "../input/secrets.ts";
import { describePolicy, type Policy } from "../policy/policy.ts";
import { OutputListeners } from "../output/listeners.ts";
import { ProcessRecords } from "./process_records.ts";
import { ProcessOutput } from "./output.ts";
import { ProcessInput } from "./input.ts";
import type { Attention } from "./attention.ts";
import type { RecordStore } from "../store/record_store.ts";
import type { RecordStats } from "../store/frames/stored_frames.ts";
import type {
  LaunchSpec,
  ProcessDetails,
  ProcessState,
  ScreenRequest,
  ScreenSnapshot,
  ShellCommand,
  Status,
} from "../model/schema.ts";
import { processScreen, type Screen, type TerminalModes } from "../screen/screen.ts";
import type { Pattern } from "../pattern/pattern.ts";
import { readiness, type Waitable } from "../steps/wait.ts";
import { Viewers } from "../watch/viewers.ts";
import { WatchedProcess } from "../watch/watched_process.ts";
import type { Injection } from "../shell/injection.ts";
import { type MarkReadiness, ShellTracker } from "../shell/tracker.ts";

/** How a process comes to be: a program started now, or one an earlier host held (pool.ts). */
export interface Origin {
  /** `spec.prompt` compiled (null for none). */
  prompt: Pattern | null;
  /** Runs once it ended. */
  onEnd: (process: ManagedProcess) => void;
  /** Where the agent works, which paces a flood of this process (attention.ts). */
  attention: Attention;
  /** Its terminal, made once the process can hear its events. */
  terminal: (events: ManagedProcess) => Terminal;
  /** Portal's shell integration added at launch, if any. */
  injection: Injection | null;
  policy: Policy;
  startedAt: Date;
  /** What the store holds of it already (an earlier host's process): its records go on from there. */
  stored?: RecordStats;
  /** How it ended, if it has (an earlier host's process, as its row says). */
  ended?: { at: Date; status: Status; exit: ExitInfo };
}

/** A program under Portal's management. */
export class ManagedProcess implements Waitable {
  readonly id: number;
  readonly spec: LaunchSpec;
  /** The person's rules it runs under (process_inspect shows them). */
  readonly policy: Policy;
  readonly startedAt: Date;
  status: Status = "running";
  exit: ExitInfo | null = null;
  endedAt: Date | null = null;
  /** Resolves once the program has ended and its last output is stored. */
  readonly ended: Promise<void>;
  readonly #terminal: Terminal;
  readonly #screen: Screen | undefined;
  /** The terminal size now (a resize changes it; `spec` keeps what was asked for). */
  #size: { cols: number; rows: number };
  /** Its records: what it wrote and what it was sent. */
  readonly #records: ProcessRecords;
  /** What is kept out of its records (see secrets.ts). */
  readonly #secrets = new Secrets();
  /** Who listens to its output as it comes (waits). */
  readonly #listeners: OutputListeners;
  /** The shell in front, as its integration marks tell it (PTY). */
  readonly #shell: ShellTracker;
  /** Portal's shell integration added at launch, if any: its files go when the process ends. */
  readonly #injection: Injection | null;
  readonly prompt: Pattern | null;
  /** What goes to the program: typed text, keys, secrets, the end of input. */
  readonly input: ProcessInput;
  /** The process as its watch pages see it, and a person who takes over types into it. */
  readonly watched: WatchedProcess;
  /** What the program wrote, as the agent reads it. */
  readonly output: ProcessOutput;
  #lastActivity = performance.now();
  #killing = false;
  #markEnded!: () => void;
  /** What it calls back: its end, and where the agent works (which paces its floods). */
  readonly #hooks: Pick<Origin, "onEnd" | "attention">;
  /** Its watch pages, and who types into it: the agent, or a person who took over. */
  readonly #viewers = new Viewers();

  /**
   * A process of `spec` on the terminal `origin` makes (see pool.ts: a
   * program started now, or one an earlier host held).
   */
  constructor(id: number, spec: LaunchSpec, store: RecordStore, origin: Origin) {
    this.id = id;
    this.spec = spec;
    this.policy = origin.policy;
    this.startedAt = origin.startedAt;
    this.#size = { cols: spec.cols, rows: spec.rows };
    const injection = this.#injection = origin.injection;
    // Only the marks of the hooks put in count (tracker.ts).
    this.#shell = new ShellTracker({ cols: () => this.#size.cols, key: injection?.key ?? null });
    this.#listeners = new OutputListeners({ dropCR: spec.pty });
    this.#records = new ProcessRecords(store, id, {
      dropCR: spec.pty,
      secrets: this.#secrets,
      onOutput: (source, bytes, seq) => {
        this.#listeners.hear(source, bytes);
        this.#screen?.write(bytes, seq);
        this.#viewers.emit({ kind: "output", seq, bytes });
        this.#shell.feed(bytes, seq);
        // The shell has read its hooks and their key: the files holding them go now.
        if (this.#shell.active) this.#injection?.cleanup();
      },
      ended: origin.stored,
    });
    if (spec.pty) this.#records.resized(spec.cols, spec.rows);
    this.output = new ProcessOutput({
      id,
      records: this.#records,
      status: () => this.status,
      size: () => spec.pty ? this.#size : undefined,
    });
    this.prompt = origin.prompt;
    // Not the whole origin: its terminal's launch holds the client's environment.
    this.#hooks = { onEnd: origin.onEnd, attention: origin.attention };
    this.ended = new Promise((resolve) => this.#markEnded = resolve);
    const screen = spec.pty ? processScreen(id, spec, store, (b) => this.#answer(b)) : undefined;
    try {
      this.#terminal = origin.terminal(this);
    } catch (error) {
      screen?.dispose();
      this.#injection?.cleanup();
      throw error;
    }
    this.#screen = screen;
    this.input = new ProcessInput({
      pty: spec.pty,
      terminal: this.#terminal,
      records: this.#records,
      secrets: this.#secrets,
      shell: this.#shell,
      running: () => this.running,
      modes: () => this.modes(),
    });
    this.watched = new WatchedProcess({
      id,
      pty: spec.pty,
      viewers: this.#viewers,
      input: this.input,
      records: this.#records,
      screen,
      ended: () => this.running ? null : this.status,
      describe: () => this.describe(),
    });
    store.track(id, {
      keepAfter: screen && (() => screen.fedSeq),
      dropped: (record, bytes) => {
        this.#records.dropped(record, bytes);
        // What is left of the output cannot rebuild the screen: its emulator stays built.
        if (record.source === "stdout") screen?.historyDropped();
      },
    });
    if (origin.ended) {
      // Its screen is drawn again from its records, when asked for.
      screen?.write(new Uint8Array(), origin.stored?.lastSeq ?? 0);
      ({ at: this.endedAt, status: this.status, exit: this.exit } = origin.ended);
      this.#markEnded();
    }
  }

  /** Answers the program's query to its terminal (processScreen), while it runs. */
  #answer(bytes: Uint8Array): void {
    if (this.status !== "running") return;
    try {
      this.#terminal.write(bytes);
    } catch { /* the program stopped reading: it no longer cares */ }
  }

  /** OS process id of the program (the leader of its process group). */
  get pid(): number {
    return this.#terminal.pid;
  }

  /** Marks agent interaction (a read or a write), which restarts the idle timeout. */
  touch(): void {
    this.#lastActivity = performance.now();
  }

  /** What the shell's integration marks say about the last input (see ShellTracker). */
  shellReadiness(): MarkReadiness {
    return this.#shell.readiness();
  }

  /** Whether a shell in front sends integration marks now. */
  get shellIntegration(): "active" | "off" {
    return this.#shell.integration;
  }

  /** The commands the shell finished since the last call, oldest first. */
  takeFinishedCommands(): ShellCommand[] {
    return this.#shell.takeFinished();
  }

  /** Whether what is typed now is a secret: a password prompt, here or behind a relay. */
  get hidesInput(): boolean {
    return this.input.hidesInput;
  }

  /** `performance.now()` of the last input sent. */
  get lastInputAt(): number {
    return this.input.lastInputAt;
  }

  get running(): boolean {
    return this.status === "running";
  }

  inputState(): InputState {
    const state = this.#terminal.inputState();
    this.input.noteActivity(state.activity);
    // Reading, but the answer to its question to the terminal is on its way: vim at start
    // asks for the cursor position and more, and would take typed keys for the answers.
    if (state.activity === "reading" && this.#screen?.owesReplies) {
      return { ...state, activity: "busy" };
    }
    return state;
  }

  collectOutput(): boolean {
    return !this.running || this.#terminal.collectOutput();
  }

  /** What the program does now (see {@link readiness}). */
  state(quietMs: number = QUIET_MS.default): ProcessState {
    return readiness(this, quietMs).state;
  }

  /** `performance.now()` of the last output. */
  get lastOutputAt(): number {
    return this.#records.lastOutputAt;
  }

  /** The output after its last newline (stdout and stderr), for prompts. */
  get lastLine(): string {
    return this.#records.lastLine;
  }

  listen(listener: (text: string | null) => void): () => void {
    return this.#listeners.listen(listener);
  }

  /** The seq of the newest record (a screen taken now shows the output up to it). */
  get outputSeq(): number {
    return this.#records.seq;
  }

  /** The input modes of a PTY's screen (null on pipes). */
  modes(): Promise<TerminalModes> | null {
    return this.#screen?.modes() ?? null;
  }

  /** Resizes the terminal and its screen (the program gets SIGWINCH); a size not given stays. */
  resize(cols = this.#size.cols, rows = this.#size.rows): void {
    this.#terminal.resize(cols, rows);
    this.#screen!.resize(cols, rows);
    this.#size = { cols, rows };
    this.#records.resized(cols, rows);
    this.#viewers.emit({ kind: "resize", afterSeq: this.#records.seq, cols, rows });
  }

  /** Whether the program runs on a terminal, and so has a screen. */
  get hasScreen(): boolean {
    return this.#screen !== undefined;
  }

  /** The rendered screen (PTY only), once all output so far has been parsed. */
  screen(options: Omit<ScreenRequest, "cols" | "rows">): Promise<ScreenSnapshot> {
    return this.#screen!.snapshot(options);
  }

  /** Everything known about the process: the one source of every JSON view of it. */
  describe(): ProcessDetails {
    const counts = this.#records.counts;
    return {
      id: this.id,
      name: this.spec.name || null,
      command: this.spec.command,
      os_pid: this.pid,
      status: this.status,
      state: this.state(),
      controlled_by: this.watched.controlledBy,
      pty: this.spec.pty,
      keep: this.spec.keep,
      timeout_ms: this.spec.timeout_ms,
      inactive_duration_ms: Math.round(performance.now() - this.#lastActivity),
      io_count: counts.stdin + counts.stdout + counts.stderr,
      args: this.spec.args,
      cwd: this.#shell.cwd ?? this.spec.cwd,
      // Values are often tokens: they go to the program, never to a reply or the file.
      env: Object.keys(this.spec.env),
      cols: this.spec.pty ? this.#size.cols : null,
      rows: this.spec.pty ? this.#size.rows : null,
      exit_code: this.exit?.code ?? null,
      exit_signal: this.exit?.signal ?? null,
      core_dumped: this.exit?.coreDumped ?? false,
      started_at: this.startedAt.toISOString(),
      ended_at: this.endedAt?.toISOString() ?? null,
      stdout_count: counts.stdout,
      stderr_count: counts.stderr,
      stdin_count: counts.stdin,
      shell_integration: this.#shell.integration,
      last_command: this.#shell.last && { ...this.#shell.last },
      ...this.policy.file ? { policy: describePolicy(this.policy) } : {},
    };
  }

  /**
   * Ends the program (and its process group or session); resolves once it is
   * gone. Once it has ended, ends its {@link hasLeftovers leftovers} instead.
   */
  async kill(): Promise<void> {
    if (this.status === "running") this.#killing = true;
    await this.#terminal.kill();
    await this.ended;
  }

  /** Whether the program has ended but processes it started live on (`sh -c 'sleep 300 &'`). */
  get hasLeftovers(): boolean {
    return this.status !== "running" && this.#terminal.hasLeftovers();
  }

  /** Forgets the records (the process stays), and the `process_read_new` cursors with them. */
  clearRecords(): number {
    // What the screen has not parsed yet is about to go.
    this.#screen?.takeBacklog();
    return this.#records.clear();
  }

  /** Frees the screen; the process must have ended. */
  dispose(): void {
    this.#screen?.dispose();
  }

  /** Backend callback: a chunk of output (the screen reads it from the records). */
  onData(source: OutputSource, bytes: Uint8Array): void {
    this.#records.append(source, bytes);
  }

  /**
   * Backend callback: a flood of its output is read slower while the agent works elsewhere,
   * unless a call (a wait, typing) is waiting on this output or a person holds its keyboard.
   */
  paceFlood(): boolean {
    if (this.#listeners.active || this.watched.controlledBy === "person") return false;
    return this.#hooks.attention.elsewhere(this.id);
  }

  /** Backend callback: the program ended; everything it wrote has been through {@link onData}. */
  onExit(info: ExitInfo): void {
    this.#records.end();
    this.#listeners.end();
    this.#shell.end();
    this.#injection?.cleanup();
    this.exit = info;
    this.endedAt = new Date();
    this.status = this.#killing ? "killed" : "exited";
    const holder = this.#viewers.holder;
    if (holder !== null) this.#viewers.giveBack(holder);
    this.#hooks.onEnd(this);
    this.#markEnded();
    this.#viewers.emit({ kind: "end" });
  }
}
