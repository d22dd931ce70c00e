/**
 * One program Portal started, and everything that belongs to it: its
 * terminal (pipes or a PTY), its screen (PTY only), its records and the
 * `process_read_new` cursors, and its place in the lifecycle
 * `running → exited | killed`. Every JSON view of a process comes from
 * {@link ManagedProcess.describe}.
 *
 * @module
 */
import { QUIET_MS } from "../limits.ts";
import { spawnPipe, spawnPty } from "../platform.ts";
import type { ExitInfo, InputState, OutputSource, Terminal } from "../terminal/terminal.ts";
import { keyBytes } from "./keys.ts";
import { OutputDecoder } from "./output_decoder.ts";
import { pasteOf } from "./paste.ts";
import { newestPage, ReadCursor } from "./read_cursor.ts";
import type { IoRecord, RawRecord, RecordStore } from "./record_store.ts";
import type {
  LaunchSpec,
  ProcessDetails,
  ProcessState,
  RecordPage,
  ScreenRequest,
  ScreenSnapshot,
  Source,
  Status,
} from "./schema.ts";
import { Screen, type TerminalModes } from "./screen.ts";
import { readiness, type Waitable } from "./wait.ts";

/** Which records a read selects. */
export interface ReadOptions {
  sources: Source[];
  /** Cap on the characters of content returned. */
  maxChars: number;
}

/** The output kept for prompt matching: the end of the last line. */
const LAST_LINE_CHARS = 1024;

/** A program under Portal's management. */
export class ManagedProcess implements Waitable {
  readonly id: number;
  readonly spec: LaunchSpec;
  readonly startedAt = new Date();
  status: Status = "running";
  exit: ExitInfo | null = null;
  endedAt: Date | null = null;
  /** Resolves once the program has ended and its last output is stored. */
  readonly ended: Promise<void>;
  readonly #terminal: Terminal;
  readonly #screen: Screen | undefined;
  /** The terminal size now (a resize changes it; `spec` keeps what was asked for). */
  #size: { cols: number; rows: number };
  readonly #store: RecordStore;
  /** Records per source since the last clear. */
  readonly #counts: Record<Source, number> = { stdin: 0, stdout: 0, stderr: 0 };
  /** Where `process_read_new` and the waiting calls stand in the output. */
  readonly #cursor: ReadCursor;
  readonly prompt: RegExp | null;
  lastOutputAt = -Infinity;
  lastInputAt = -Infinity;
  /** The newest output seq, and the last line as of it (computed when asked). */
  #outputSeq = 0;
  #lastLine = { seq: 0, text: "" };
  readonly #watchers = new Set<(text: string | null) => void>();
  /** Decoders for the watchers only: records are stored raw and decoded when read. */
  #liveDecoders: Record<OutputSource, OutputDecoder> | null = null;
  #seq = 0;
  #lastTimestamp = -1;
  #endNs: number | undefined;
  readonly #startPerf = performance.now();
  #lastActivity = performance.now();
  /** Bytes dropped by the store's cap per source, and the newest dropped record's timestamp. */
  readonly #dropped: Record<Source, number> = { stdin: 0, stdout: 0, stderr: 0 };
  #droppedUntil = -1;
  /** Of those, bytes `process_read_new` had not returned yet: reported once, by the next one. */
  readonly #unread: Record<OutputSource, number> = { stdout: 0, stderr: 0 };
  #killing = false;
  #markEnded!: () => void;
  readonly #onEnd: (process: ManagedProcess) => void;

  /**
   * Starts the program of `spec` (`cwd` absolute, every default applied) on
   * pipes or, with `spec.pty`, on a new terminal with a screen. Throws
   * {@link PortalError} when it cannot start; `onEnd` runs once it ended.
   */
  constructor(
    id: number,
    spec: LaunchSpec,
    store: RecordStore,
    onEnd: (process: ManagedProcess) => void,
  ) {
    this.id = id;
    this.spec = spec;
    this.#size = { cols: spec.cols, rows: spec.rows };
    this.#store = store;
    this.#cursor = new ReadCursor(store, id, { dropCR: spec.pty });
    this.prompt = spec.prompt === "" ? null : new RegExp(spec.prompt, "m");
    this.#onEnd = onEnd;
    this.ended = new Promise((resolve) => this.#markEnded = resolve);
    // A terminal announces itself as xterm-256color (what the emulator understands) unless
    // the caller says otherwise; the server's own TERM describes some other terminal.
    const term: Record<string, string> = spec.pty ? { TERM: "xterm-256color" } : {};
    const options = { ...spec, env: { ...term, ...spec.env } };
    // The screen reads its backlog from the store, and the store keeps what it has not parsed.
    const cap = store.maxOutputBytes;
    const screen = spec.pty
      ? new Screen(spec.cols, spec.rows, {
        backlog: (afterSeq, maxBytes) => store.raw(id, "stdout", afterSeq, maxBytes),
        maxLag: cap > 0 ? Math.ceil(cap / 4) : Infinity,
      })
      : undefined;
    try {
      this.#terminal = (spec.pty ? spawnPty : spawnPipe)(options, this);
    } catch (error) {
      screen?.dispose();
      throw error;
    }
    this.#screen = screen;
    store.track(id, {
      keepAfter: screen && (() => screen.parsedSeq),
      dropped: (record, bytes) => this.#onDropped(record, bytes),
    });
    // A real terminal answers the program's queries (cursor position, device attributes).
    screen?.onReply((data) => {
      if (this.status !== "running") return;
      try {
        this.#terminal.write(new TextEncoder().encode(data));
      } catch { /* the program stopped reading: it no longer cares */ }
    });
  }

  /** OS process id of the program (the leader of its process group). */
  get pid(): number {
    return this.#terminal.pid;
  }

  /** Nanoseconds since the process started; for an ended process, its age at the end. */
  elapsedNs(): number {
    return this.#endNs ?? Math.round((performance.now() - this.#startPerf) * 1e6);
  }

  /** Milliseconds since the last read or write. */
  get idleMs(): number {
    return Math.round(performance.now() - this.#lastActivity);
  }

  /** Marks agent interaction (a read or a write), which restarts the idle timeout. */
  touch(): void {
    this.#lastActivity = performance.now();
  }

  /** Sends `content` to the program's input and records it as `stdin`; returns its bytes. */
  write(content: string): number {
    const bytes = new TextEncoder().encode(content);
    if (bytes.length === 0) return 0;
    this.#terminal.write(bytes);
    this.lastInputAt = performance.now();
    this.#record("stdin", bytes);
    return bytes.length;
  }
  /**
   * Types `content` (as a bracketed paste when it has several lines and the
   * program asked for pastes), then the keys named in `keys`. On pipes Enter
   * is `\n` and Ctrl+C interrupts (SIGINT), there being no line discipline.
   * Every name is checked before anything is sent. Returns the bytes written.
   */
  async type(content: string, keys: string[]): Promise<number> {
    const modes: TerminalModes | null = this.#screen ? await this.#screen.modes() : null;
    const keyModes = {
      applicationCursorKeys: modes?.applicationCursorKeys ?? false,
      enter: this.spec.pty ? "\r" : "\n",
    };
    const pressed = keys.map((name) => keyBytes(name, keyModes));
    let pending = (modes?.bracketedPaste ? pasteOf(content) : null) ?? content;
    let written = 0;
    for (const bytes of pressed) {
      if (this.spec.pty || bytes !== "\x03") {
        pending += bytes;
        continue;
      }
      written += this.write(pending);
      pending = "";
      this.interrupt("ctrl_c");
    }
    return written + this.write(pending);
  }

  /** Ends the program's input (pipes: close stdin; PTY: Ctrl+D). */
  endInput(): void {
    this.#terminal.endInput();
    this.lastInputAt = performance.now();
  }

  get running(): boolean {
    return this.status === "running";
  }

  inputState(): InputState {
    return this.#terminal.inputState();
  }

  collectOutput(): boolean {
    return !this.running || this.#terminal.collectOutput();
  }

  /** What the program does now (see {@link readiness}). */
  state(quietMs: number = QUIET_MS.default): ProcessState {
    return readiness(this, quietMs).state;
  }

  /** The output after its last newline (stdout and stderr), for prompts. */
  get lastLine(): string {
    if (this.#lastLine.seq !== this.#outputSeq) {
      const { records } = this.#store.query(this.id, {
        sources: ["stdout", "stderr"],
        maxChars: LAST_LINE_CHARS,
        newest: true,
        dropCR: this.spec.pty,
      });
      const text = records.map((r) => r.content).join("").slice(-LAST_LINE_CHARS);
      this.#lastLine = { seq: this.#outputSeq, text: text.slice(text.lastIndexOf("\n") + 1) };
    }
    return this.#lastLine.text;
  }

  /**
   * Calls `listener` with each new chunk of output as text, and with null once
   * the program ended; returns an unsubscribe.
   */
  watch(listener: (text: string | null) => void): () => void {
    this.#watchers.add(listener);
    this.#liveDecoders ??= {
      stdout: new OutputDecoder({ dropCR: this.spec.pty }),
      stderr: new OutputDecoder({ dropCR: this.spec.pty }),
    };
    return () => {
      this.#watchers.delete(listener);
      if (this.#watchers.size === 0) this.#liveDecoders = null;
    };
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
    const delivery = this.#terminal.interrupt(kind);
    this.lastInputAt = performance.now();
    return delivery;
  }

  /** Resizes the terminal and its screen (the program gets SIGWINCH). */
  resize(cols: number, rows: number): void {
    this.#terminal.resize(cols, rows);
    this.#screen!.resize(cols, rows);
    this.#size = { cols, rows };
  }

  /** Whether the program runs on a terminal, and so has a screen. */
  get hasScreen(): boolean {
    return this.#screen !== undefined;
  }

  /** The rendered screen (PTY only), once all output so far has been parsed. */
  screen(options: Omit<ScreenRequest, "cols" | "rows">): Promise<ScreenSnapshot> {
    return this.#screen!.snapshot(options);
  }

  /**
   * Records not returned by an earlier `readNew` (or waiting call) for these
   * sources, oldest first, at most `maxChars` of content (a longer record is
   * cut, the rest comes next time); the cursors move past what is returned.
   */
  readNew(options: { sources: OutputSource[]; maxChars: number }): RecordPage {
    const { records, complete } = this.#cursor.page(options.sources, options.maxChars);
    return this.#page(records, complete, this.#takeUnreadDrops(options.sources));
  }

  /**
   * Unread output as one text (head and tail past `maxChars`); the cursors
   * move to the end. `dropped`: unread bytes the store's cap dropped.
   */
  readText(
    sources: OutputSource[],
    maxChars: number,
  ): { text: string; omitted: number; dropped: number } {
    const dropped = this.#takeUnreadDrops(sources);
    return { ...this.#cursor.text(sources, maxChars, this.#seq), dropped };
  }

  /** Marks all output so far as read (it was shown as a rendered screen instead). */
  skipUnread(sources: OutputSource[]): void {
    this.#takeUnreadDrops(sources);
    this.#cursor.skip(sources, this.#seq);
  }

  /** The last `chars` characters of unread output; the cursors stay. */
  peekUnread(sources: OutputSource[], chars: number): string {
    return this.#cursor.peek(sources, chars);
  }

  /** Records from the last `windowNs` of the process's life; the newest win `maxChars`. */
  read(options: ReadOptions & { windowNs: number }): RecordPage {
    const since = Math.max(0, this.elapsedNs() - options.windowNs);
    const { records, complete } = newestPage(this.#store, this.id, {
      sources: options.sources,
      sinceTimestamp: since,
      maxChars: options.maxChars,
      dropCR: this.spec.pty,
    });
    // The window reaches back past the oldest record kept: say how much is gone before it.
    const dropped = since <= this.#droppedUntil
      ? options.sources.reduce((sum, source) => sum + this.#dropped[source], 0)
      : 0;
    return this.#page(records, complete, dropped);
  }

  /** Unread bytes of `sources` the cap dropped since the last read: reported once. */
  #takeUnreadDrops(sources: OutputSource[]): number {
    let dropped = 0;
    for (const source of sources) {
      dropped += this.#unread[source];
      this.#unread[source] = 0;
    }
    return dropped;
  }

  /** Everything known about the process: the one source of every JSON view of it. */
  describe(): ProcessDetails {
    const counts = this.#counts;
    return {
      id: this.id,
      command: this.spec.command,
      os_pid: this.pid,
      status: this.status,
      state: this.state(),
      pty: this.spec.pty,
      timeout_ms: this.spec.timeout_ms,
      inactive_duration_ms: this.idleMs,
      io_count: counts.stdin + counts.stdout + counts.stderr,
      args: this.spec.args,
      cwd: this.spec.cwd,
      env: this.spec.env,
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
    const counts = this.#counts;
    const removed = counts.stdin + counts.stdout + counts.stderr;
    // What the screen has not parsed yet is about to go.
    this.#screen?.takeBacklog();
    this.#store.deleteRecords(this.id);
    counts.stdin = counts.stdout = counts.stderr = 0;
    this.#cursor.reset();
    this.#dropped.stdin = this.#dropped.stdout = this.#dropped.stderr = 0;
    this.#unread.stdout = this.#unread.stderr = 0;
    this.#droppedUntil = -1;
    return removed;
  }

  /** Frees the screen; the process must have ended. */
  dispose(): void {
    this.#screen?.dispose();
  }

  /** Backend callback: a chunk of output. */
  onData(source: OutputSource, bytes: Uint8Array): void {
    const seq = this.#record(source, bytes);
    this.#screen?.write(bytes, seq);
  }

  /** Backend callback: the program ended; everything it wrote has been through {@link onData}. */
  onExit(info: ExitInfo): void {
    this.#store.flush();
    this.#endNs = this.#nextTimestamp();
    this.exit = info;
    this.endedAt = new Date();
    this.status = this.#killing ? "killed" : "exited";
    this.#onEnd(this);
    this.#markEnded();
    if (this.#liveDecoders !== null) {
      for (const source of ["stdout", "stderr"] as const) {
        this.#notify(this.#liveDecoders[source].decode());
      }
    }
    for (const watcher of this.#watchers) watcher(null);
  }

  /** The timestamp of a new record: {@link elapsedNs}, made strictly increasing. */
  #nextTimestamp(): number {
    this.#lastTimestamp = Math.max(this.elapsedNs(), this.#lastTimestamp + 1);
    return this.#lastTimestamp;
  }

  /**
   * The one way bytes enter the records, exactly as they came (a filter that
   * must see every byte before it is stored belongs here). Returns the seq.
   */
  #record(source: Source, bytes: Uint8Array): number {
    const record: RawRecord = { seq: ++this.#seq, timestamp: this.#nextTimestamp(), source, bytes };
    this.#counts[source]++;
    this.#store.append(this.id, record);
    if (source !== "stdin") {
      this.#outputSeq = record.seq;
      this.lastOutputAt = performance.now();
      if (this.#liveDecoders !== null) this.#notify(this.#liveDecoders[source].decode(bytes));
    }
    return record.seq;
  }

  #notify(text: string): void {
    if (text === "") return;
    for (const watcher of this.#watchers) watcher(text);
  }

  /** A record dropped by the store's cap (oldest first). */
  #onDropped(record: Omit<RawRecord, "bytes">, bytes: number): void {
    this.#dropped[record.source] += bytes;
    this.#droppedUntil = record.timestamp;
    if (record.source !== "stdin" && record.seq > this.#cursor.seqOf(record.source)) {
      this.#unread[record.source] += bytes;
    }
  }

  #page(records: IoRecord[], complete: boolean, dropped: number): RecordPage {
    return {
      id: this.id,
      status: this.status,
      records: records.map(({ timestamp, source, content }) => ({ timestamp, source, content })),
      truncated: !complete,
      dropped_bytes: dropped,
    };
  }
}
