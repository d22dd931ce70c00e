/**
 * One program Portal started, and everything that belongs to it: its
 * terminal (pipes or a PTY), its screen (PTY only), its records and the
 * `process_read_new` cursors, and its place in the lifecycle
 * `running → exited | killed`. Every JSON view of a process comes from
 * {@link ManagedProcess.describe}.
 *
 * @module
 */
import { PortalError } from "../../errors.ts";
import { QUIET_MS, TERMINAL_SIZE } from "../../limits.ts";
import { spawnPipe, spawnPty } from "../../platform.ts";
import { RecordedTerminal } from "../../terminal/recorded.ts";
import type { ExitInfo, InputState, OutputSource, Terminal } from "../../terminal/terminal.ts";
import { keyBytes } from "../input/keys.ts";
import { echoOf, pasteOf, typedLines } from "../input/typing.ts";
import { Secrets } from "../input/secrets.ts";
import { OutputWatchers } from "../output/watchers.ts";
import { type LogPage, ProcessLog } from "./log.ts";
import type { RecordStore } from "../store/record_store.ts";
import type {
  Encoding,
  LaunchSpec,
  ProcessDetails,
  ProcessState,
  RecordPage,
  ScreenRequest,
  ScreenSnapshot,
  Source,
  Status,
} from "../model/schema.ts";
import { Screen, type TerminalModes } from "../screen/screen.ts";
import type { Pattern } from "../steps/pattern.ts";
import { readiness, type Waitable } from "../steps/wait.ts";
import type { LiveEvent, LiveScreen, LiveSource } from "../watch/live_feed.ts";
import { Viewers } from "../watch/viewers.ts";
import type { Recording } from "../recording/asciicast.ts";

/** The tail of a pipe process's output a watcher's page starts with. */
const PIPE_TAIL_CHARS = 16_000;
import { type Injection, injectionFor } from "../shell/injection.ts";
import { INTEGRATION_SNIPPET } from "../shell/snippet.ts";
import { type Command, type MarkReadiness, ShellTracker } from "../shell/tracker.ts";

/** A piece of input, and whether it is a secret. */
interface Typed {
  text: string;
  secret: boolean;
}

/** What one write types: text, keys by name, a secret, and whether to paste the text. */
export interface TypeRequest {
  content: string;
  keys: string[];
  secret?: string;
  paste?: boolean;
}

/** A program under Portal's management. */
export class ManagedProcess implements Waitable, LiveSource {
  readonly id: number;
  readonly spec: LaunchSpec;
  readonly startedAt: Date = new Date();
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
  readonly #log: ProcessLog;
  /** What is kept out of its records (see secrets.ts). */
  readonly #secrets = new Secrets();
  /** Who listens to its output as it comes (waits). */
  readonly #watchers: OutputWatchers;
  /** The shell in front, as its integration marks tell it (PTY). */
  readonly #shell: ShellTracker;
  /** Portal's shell integration added at launch, if any: its files go when the process ends. */
  readonly #injection: Injection | null;
  readonly prompt: Pattern | null;
  lastInputAt = -Infinity;
  #lastActivity = performance.now();
  /** What the kernel last said the program does with its input (see {@link inputState}). */
  #inputActivity: InputState["activity"] | null = null;
  #killing = false;
  #markEnded!: () => void;
  readonly #onEnd: (process: ManagedProcess) => void;
  /** Its watch pages, and who types into it: the agent, or a person who took over. */
  readonly #viewers = new Viewers();

  /**
   * Starts the program of `spec` (`cwd` absolute, every default applied) on
   * pipes or, with `spec.pty`, on a new terminal with a screen. Throws
   * a PortalError when it cannot start. `prompt`: `spec.prompt`
   * compiled (null for none); `onEnd` runs once it ended.
   */
  constructor(
    id: number,
    spec: LaunchSpec,
    store: RecordStore,
    hooks: { prompt: Pattern | null; onEnd: (process: ManagedProcess) => void },
    options: { baseEnv?: Record<string, string>; earlier?: ProcessDetails } = {},
  ) {
    // Nothing starts whose records could not be stored (a full disk).
    if (!options.earlier) store.checkWritable();
    this.id = id;
    this.spec = spec;
    this.#size = { cols: spec.cols, rows: spec.rows };
    const { earlier } = options;
    const stored = earlier && store.recordStats(id);
    this.#shell = new ShellTracker({
      cols: () => this.#size.cols,
      follow: spec.pty && spec.shell_integration,
    });
    this.#watchers = new OutputWatchers({ dropCR: spec.pty });
    this.#log = new ProcessLog(store, id, {
      dropCR: spec.pty,
      secrets: this.#secrets,
      onOutput: (source, bytes, seq) => {
        this.#watchers.hear(source, bytes);
        this.#screen?.write(bytes, seq);
        this.#viewers.emit({ kind: "output", seq, bytes });
        this.#shell.feed(bytes, seq);
      },
      ended: stored,
    });
    if (spec.pty) this.#log.resized(spec.cols, spec.rows);
    this.prompt = hooks.prompt;
    this.#onEnd = hooks.onEnd;
    this.ended = new Promise((resolve) => this.#markEnded = resolve);
    // A terminal announces itself as xterm-256color (what the emulator understands) unless
    // the caller says otherwise; the server's own TERM describes some other terminal.
    const term: Record<string, string> = spec.pty ? { TERM: "xterm-256color" } : {};
    const env = { ...term, ...spec.env };
    // A program an earlier host held is not started again, so nothing is injected into it.
    this.#injection = spec.pty && spec.shell_integration && !earlier
      ? injectionFor({ command: spec.command, args: spec.args, env }, options.baseEnv)
      : null;
    const launch = {
      ...spec,
      args: this.#injection?.args ?? spec.args,
      env: { ...env, ...this.#injection?.env },
      baseEnv: options.baseEnv,
    };
    // The screen reads its backlog from the store, and the store keeps what it has not parsed.
    const cap = store.maxOutputBytes;
    const screen = spec.pty
      ? new Screen(spec.cols, spec.rows, {
        backlog: (afterSeq, maxBytes) => store.raw(id, "stdout", afterSeq, maxBytes),
        maxLag: cap > 0 ? Math.ceil(cap / 4) : Infinity,
      })
      : undefined;
    try {
      this.#terminal = earlier
        ? new RecordedTerminal(earlier.os_pid)
        : (spec.pty ? spawnPty : spawnPipe)(launch, this);
    } catch (error) {
      screen?.dispose();
      this.#injection?.cleanup();
      throw error;
    }
    this.#screen = screen;
    store.track(id, {
      keepAfter: screen && (() => screen.fedSeq),
      dropped: (record, bytes) => {
        this.#log.dropped(record, bytes);
        // What is left of the output cannot rebuild the screen: its emulator stays built.
        if (record.source === "stdout") screen?.historyDropped();
      },
    });
    // A real terminal answers the program's queries (cursor position, device attributes).
    screen?.onReply((data) => {
      if (this.status !== "running") return;
      try {
        this.#terminal.write(new TextEncoder().encode(data));
      } catch { /* the program stopped reading: it no longer cares */ }
    });
    if (earlier) {
      // Its screen is drawn again from its records, when asked for.
      screen?.write(new Uint8Array(), stored!.lastSeq);
      this.startedAt = new Date(earlier.started_at);
      this.endedAt = new Date(earlier.ended_at ?? Date.now());
      this.status = earlier.status === "running" ? "killed" : earlier.status;
      this.exit = { code: earlier.exit_code, signal: earlier.exit_signal };
      this.#markEnded();
    }
  }

  /**
   * A program an earlier host held, as the database tells it (`row`): ended
   * (`killed` when that host died while it ran), its records readable, its
   * screen drawn from them.
   */
  static earlier(row: ProcessDetails, store: RecordStore): ManagedProcess {
    const spec: LaunchSpec = {
      command: row.command,
      args: row.args,
      cwd: row.cwd,
      // Values are never stored: the names are what is known.
      env: Object.fromEntries(row.env.map((name) => [name, ""])),
      pty: row.pty,
      timeout_ms: row.timeout_ms,
      cols: TERMINAL_SIZE.defaultCols,
      rows: TERMINAL_SIZE.defaultRows,
      prompt: "",
      keep: row.keep,
      name: row.name ?? "",
      shell_integration: false,
    };
    return new ManagedProcess(row.id, spec, store, { prompt: null, onEnd: () => {} }, {
      earlier: row,
    });
  }

  /** OS process id of the program (the leader of its process group). */
  get pid(): number {
    return this.#terminal.pid;
  }

  /** Milliseconds since the last read or write. */
  get idleMs(): number {
    return Math.round(performance.now() - this.#lastActivity);
  }

  /** Marks agent interaction (a read or a write), which restarts the idle timeout. */
  touch(): void {
    this.#lastActivity = performance.now();
  }

  /**
   * Sends `parts` to the program's input as one write and records them as
   * one `stdin` record, the secret parts as `[secret: N chars]`; returns the bytes.
   */
  write(parts: Typed[]): number {
    return this.#send(parts).bytes;
  }

  /** {@link write}, and the `stdin` record it made. */
  #send(parts: Typed[]): { bytes: number; record: string } {
    const bytes = new TextEncoder().encode(parts.map((p) => p.text).join(""));
    if (bytes.length === 0) return { bytes: 0, record: "" };
    // Known before the program can echo it.
    const record = parts.map((p) => this.#secrets.typed(p.text, p.secret)).join("");
    this.#noteInput();
    this.#terminal.write(bytes);
    this.lastInputAt = performance.now();
    this.#log.append("stdin", new TextEncoder().encode(record));
    return { bytes: bytes.length, record };
  }

  /** Who types into the program now (see viewers.ts). */
  get controlledBy(): "agent" | "person" {
    return this.#viewers.controlledBy;
  }

  /** A person's page takes the keyboard (from the agent, or from another page). */
  takeOver(page: object): void {
    if (!this.running) {
      throw new PortalError(`Process ${this.id} has ended (${this.status}): nothing to type into.`);
    }
    this.#viewers.take(page);
  }

  /** The page gives the keyboard back to the agent (closing it does too); false if it had not. */
  giveBack(page: object): boolean {
    return this.#viewers.giveBack(page);
  }

  /**
   * What a person typed on the page that holds the keyboard, as a terminal
   * sends it: recorded as `stdin` like the agent's input (a secret at a
   * password prompt redacted the same way), and kept for the agent's next
   * reply. On pipes Enter is `\n` and Ctrl+C interrupts, as for the agent.
   */
  typeAsPerson(page: object, data: string): void {
    if (this.#viewers.holder !== page) {
      throw new PortalError("Press Take over first: until then keys typed here go nowhere.");
    }
    if (!this.running) return;
    this.#log.checkWritable();
    const hidden = this.#terminal.hidesInput();
    const parts = this.spec.pty ? [data] : data.replaceAll("\r", "\n").split("\x03");
    parts.forEach((text, i) => {
      if (i > 0) this.interrupt("ctrl_c");
      this.#viewers.typed(this.#send([{ text, secret: hidden }]).record);
    });
  }

  /** What a person typed since the agent's last call on this process (see viewers.ts). */
  takePersonInput(): { person_input?: string } {
    return this.#viewers.takeTyped();
  }

  observe(listener: (event: LiveEvent) => void): () => void {
    return this.#viewers.observe(listener);
  }

  /** The whole terminal now, for a watcher: the emulator's (PTY), or the output's tail (pipes). */
  async liveScreen(): Promise<LiveScreen> {
    if (this.#screen) return { ...await this.#screen.serialize(), pty: true };
    const seq = this.#log.seq;
    return { seq, cols: 0, rows: 0, data: this.#log.tailText(PIPE_TAIL_CHARS), pty: false };
  }

  /** The process and its records, for an asciicast. */
  recording(): Recording {
    return { process: this.describe(), ...this.#log.recording() };
  }

  /**
   * Types `content` as a person types it (typing.ts): on a PTY line by line,
   * each line end pressed as Enter, awaiting `next` between two lines (false:
   * the rest goes at once); with `paste` where the program enabled
   * bracketed paste, as one paste. Then `secret`, then the keys named in
   * `keys`. On pipes content goes as it is, Enter is `\n` and Ctrl+C
   * interrupts (SIGINT), there being no line discipline. Every name is
   * checked before anything is sent. What is typed at a password prompt is a
   * secret too. Returns the bytes written and, when a paste was asked for,
   * whether it was one. A program that ends meanwhile gets no more.
   */
  async type(
    input: TypeRequest,
    next: () => Promise<boolean> = () => Promise.resolve(false),
  ): Promise<{ written: number; pasted?: boolean; echo: string[] }> {
    const { content, keys, secret, paste = false } = input;
    this.#log.checkWritable();
    let modes = await this.modes();
    keys.forEach((name) => keyBytes(name, this.#keyModes(modes)));
    if (secret !== undefined) this.#secrets.add(secret);
    const pasted = paste && modes?.bracketedPaste === true;
    const lines = pasted ? [pasteOf(content)] : this.spec.pty ? typedLines(content) : [content];
    const echo = this.spec.pty && !pasted && !this.#terminal.hidesInput()
      ? echoOf(lines, keys, secret)
      : [];
    const result = (written: number) => paste ? { written, pasted, echo } : { written, echo };
    let written = 0;
    let paced = true;
    for (const line of lines.slice(0, -1)) {
      written += this.write([{ text: line, secret: this.#terminal.hidesInput() }]);
      paced &&= await next();
      if (!this.running) return result(written);
    }
    // Earlier lines may have started a program with other modes (cursor keys).
    if (lines.length > 1) modes = await this.modes();
    const hidden = this.#terminal.hidesInput();
    const pending: Typed[] = [{ text: lines.at(-1)!, secret: hidden }];
    if (secret !== undefined) pending.push({ text: secret, secret: true });
    for (const name of keys) {
      const bytes = keyBytes(name, this.#keyModes(modes));
      if (this.spec.pty || bytes !== "\x03") {
        pending.push({ text: bytes, secret: hidden });
        continue;
      }
      written += this.write(pending.splice(0));
      this.interrupt("ctrl_c");
    }
    return result(written + this.write(pending));
  }

  #keyModes(modes: TerminalModes | null) {
    return {
      applicationCursorKeys: modes?.applicationCursorKeys ?? false,
      enter: this.spec.pty ? "\r" : "\n",
    };
  }

  /**
   * Types Portal's shell integration snippet (shell/snippet.ts) into the
   * shell in front, whatever it is behind (ssh, a container, `sudo -i`): its
   * marks are followed from then on, and the output up to the first prompt
   * it draws (the snippet's echo) counts as read. Returns the bytes written.
   */
  async integrate(): Promise<number> {
    if (!this.spec.pty) {
      throw new PortalError(
        "integrate needs a terminal: a shell on pipes draws no prompt. Start the shell with " +
          "pty: true.",
      );
    }
    if (this.#terminal.hidesInput()) {
      throw new PortalError(
        "The terminal is at a password prompt (echo off): answer it first (secret_env, " +
          "secret_prompt or secret), then send integrate at the shell's prompt.",
      );
    }
    if ((await this.modes())?.alternateBuffer) {
      throw new PortalError(
        "A full-screen program is in front (it shows the alternate screen): leave it, then " +
          "send integrate at the shell's prompt.",
      );
    }
    this.#shell.restart((seq, rest) => this.#log.skipUnreadTo(seq, rest));
    return (await this.type({ content: INTEGRATION_SNIPPET + "\n", keys: [] })).written;
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
  takeFinishedCommands(): Command[] {
    return this.#shell.takeFinished();
  }

  /**
   * Input goes in: the shell's marks are read against it, and against what
   * was in front when the last wait looked (a relay, which the kernel cannot
   * see through, or not): asking the kernel again here would cost a step.
   */
  #noteInput(): void {
    this.#shell.input(this.#inputActivity === "unknown");
  }

  /** Whether the terminal hides what is typed now (a password prompt). */
  get hidesInput(): boolean {
    return this.#terminal.hidesInput();
  }

  /** Ends the program's input (pipes: close stdin; PTY: Ctrl+D). */
  endInput(): void {
    this.#noteInput();
    this.#terminal.endInput();
    this.lastInputAt = performance.now();
  }

  get running(): boolean {
    return this.status === "running";
  }

  inputState(): InputState {
    const state = this.#terminal.inputState();
    this.#inputActivity = state.activity;
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
    return this.#log.lastOutputAt;
  }

  /** The output after its last newline (stdout and stderr), for prompts. */
  get lastLine(): string {
    return this.#log.lastLine;
  }

  watch(listener: (text: string | null) => void): () => void {
    return this.#watchers.watch(listener);
  }

  /** The seq of the newest record (a screen taken now shows the output up to it). */
  get outputSeq(): number {
    return this.#log.seq;
  }

  /** The input modes of a PTY's screen (null on pipes). */
  modes(): Promise<TerminalModes> | null {
    return this.#screen?.modes() ?? null;
  }

  /**
   * Sends signal number `signo`: to the process group on pipes, to the
   * terminal's foreground process group on a PTY. Returns where it went.
   */
  signal(signo: number): string {
    this.#terminal.signal(signo);
    return this.spec.pty ? "foreground process group of the terminal" : "process group";
  }

  /**
   * A console event: on a PTY the key is typed (^C, or ^\ for a break) and
   * the line discipline signals; on pipes the equivalent signal is sent.
   */
  interrupt(kind: "ctrl_c" | "ctrl_break"): { signal: string; delivered_to: string } {
    this.#noteInput();
    const delivery = this.#terminal.interrupt(kind);
    this.lastInputAt = performance.now();
    return delivery;
  }

  /** Resizes the terminal and its screen (the program gets SIGWINCH). */
  resize(cols: number, rows: number): void {
    this.#terminal.resize(cols, rows);
    this.#screen!.resize(cols, rows);
    this.#size = { cols, rows };
    this.#log.resized(cols, rows);
    this.#viewers.emit({ kind: "resize", afterSeq: this.#log.seq, cols, rows });
  }

  /** Whether the program runs on a terminal, and so has a screen. */
  get hasScreen(): boolean {
    return this.#screen !== undefined;
  }

  /** The rendered screen (PTY only), once all output so far has been parsed. */
  screen(options: Omit<ScreenRequest, "cols" | "rows">): Promise<ScreenSnapshot> {
    return this.#screen!.snapshot(options);
  }

  /** Unread output as records, at most `maxChars` (see {@link ProcessLog.readNew}). */
  readNew(options: { sources: OutputSource[]; maxChars: number }): RecordPage {
    return this.#page(this.#log.readNew(options));
  }

  /** Records from the last `windowNs` of the process's life; the newest win `maxChars`. */
  read(
    options: { sources: Source[]; maxChars: number; windowNs: number; encoding?: Encoding },
  ): RecordPage {
    return this.#page(this.#log.read(options));
  }

  /** Unread output as one text, head and tail past `maxChars`; it counts as read. */
  readNewText(
    sources: OutputSource[],
    maxChars: number,
  ): { text: string; omitted: number; dropped: number } {
    return this.#log.readText(sources, maxChars, this.spec.pty ? this.#size : undefined);
  }

  /** Marks all output so far as read (a reply showed the rendered screen instead). */
  skipNew(sources: OutputSource[]): void {
    this.#log.skipUnread(sources);
  }

  /** The last `chars` characters of unread output; they stay unread. */
  peekNew(sources: OutputSource[], chars: number): string {
    return this.#log.peekUnread(sources, chars);
  }

  /** Everything known about the process: the one source of every JSON view of it. */
  describe(): ProcessDetails {
    const counts = this.#log.counts;
    return {
      id: this.id,
      name: this.spec.name || null,
      command: this.spec.command,
      os_pid: this.pid,
      status: this.status,
      state: this.state(),
      controlled_by: this.#viewers.controlledBy,
      pty: this.spec.pty,
      keep: this.spec.keep,
      timeout_ms: this.spec.timeout_ms,
      inactive_duration_ms: this.idleMs,
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
    };
  }

  /**
   * Ends the program (and its process group or session); resolves once it is
   * gone. Once it has ended, ends its {@link hasLeftovers leftovers} instead.
   */
  async kill(graceMs?: number): Promise<void> {
    if (this.status === "running") this.#killing = true;
    await this.#terminal.kill(graceMs);
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
    return this.#log.clear();
  }

  /** Frees the screen; the process must have ended. */
  dispose(): void {
    this.#screen?.dispose();
  }

  /** Backend callback: a chunk of output (the screen reads it from the records). */
  onData(source: OutputSource, bytes: Uint8Array): void {
    this.#log.append(source, bytes);
  }

  /** Backend callback: the program ended; everything it wrote has been through {@link onData}. */
  onExit(info: ExitInfo): void {
    this.#log.end();
    this.#watchers.end();
    this.#shell.end();
    this.#injection?.cleanup();
    this.exit = info;
    this.endedAt = new Date();
    this.status = this.#killing ? "killed" : "exited";
    const holder = this.#viewers.holder;
    if (holder !== null) this.#viewers.giveBack(holder);
    this.#onEnd(this);
    this.#markEnded();
    this.#viewers.emit({ kind: "end" });
  }

  #page({ records, complete, dropped }: LogPage): RecordPage {
    return {
      id: this.id,
      status: this.status,
      records: records.map(({ timestamp, source, content }) => ({ timestamp, source, content })),
      truncated: !complete,
      dropped_bytes: dropped,
    };
  }
}
