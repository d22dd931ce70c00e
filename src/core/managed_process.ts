/**
 * One program Portal started, and everything that belongs to it: its
 * terminal (pipes or a PTY), its screen (PTY only), its records and the
 * `process_read_new` cursors, and its place in the lifecycle
 * `running → exited | killed`. Every JSON view of a process comes from
 * {@link ManagedProcess.describe}.
 *
 * @module
 */
import { spawnPipe, spawnPty } from "../platform.ts";
import type { ExitInfo, OutputSource, Terminal } from "../terminal/terminal.ts";
import type { IoRecord, RawRecord, RecordStore } from "./record_store.ts";
import type {
  LaunchSpec,
  ProcessDetails,
  RecordPage,
  ScreenRequest,
  ScreenSnapshot,
  Source,
  Status,
} from "./schema.ts";
import { Screen } from "./screen.ts";

/** Which records a read selects. */
export interface ReadOptions {
  sources: Source[];
  /** Cap on the characters of content returned. */
  maxChars?: number;
}

/** A program under Portal's management. */
export class ManagedProcess {
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
  /** `process_read_new` position per output source (a sequence number). */
  readonly #cursors: Record<OutputSource, number> = { stdout: 0, stderr: 0 };
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
    this.#record("stdin", bytes);
    return bytes.length;
  }

  /** Ends the program's input (pipes: close stdin; PTY: Ctrl+D). */
  endInput(): void {
    this.#terminal.endInput();
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
    return this.#terminal.interrupt(kind);
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
   * Records not returned by an earlier `readNew` for these sources, oldest
   * first; the cursors move past what is returned.
   */
  readNew(options: ReadOptions): RecordPage {
    const { records, complete, lastSeq } = this.#store.query(this.id, {
      sources: options.sources,
      afterSeq: this.#cursors,
      maxChars: options.maxChars,
      dropCR: this.spec.pty,
    });
    let dropped = 0;
    for (const source of options.sources) {
      if (source === "stdin") continue;
      // Every matching record up to `lastSeq` was returned (or was empty text).
      if (lastSeq !== undefined) this.#cursors[source] = Math.max(this.#cursors[source], lastSeq);
      dropped += this.#unread[source];
      this.#unread[source] = 0;
    }
    return this.#page(records, complete, dropped);
  }

  /** Records from the last `windowNs` of the process's life; the newest win `maxChars`. */
  read(options: ReadOptions & { windowNs: number }): RecordPage {
    const since = Math.max(0, this.elapsedNs() - options.windowNs);
    const { records, complete } = this.#store.query(this.id, {
      sources: options.sources,
      sinceTimestamp: since,
      maxChars: options.maxChars,
      newest: true,
      dropCR: this.spec.pty,
    });
    // The window reaches back past the oldest record kept: say how much is gone before it.
    const dropped = since <= this.#droppedUntil
      ? options.sources.reduce((sum, source) => sum + this.#dropped[source], 0)
      : 0;
    return this.#page(records, complete, dropped);
  }

  /** Everything known about the process: the one source of every JSON view of it. */
  describe(): ProcessDetails {
    const counts = this.#counts;
    return {
      id: this.id,
      command: this.spec.command,
      os_pid: this.pid,
      status: this.status,
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
    this.#cursors.stdout = this.#cursors.stderr = 0;
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
    return record.seq;
  }

  /** A record dropped by the store's cap (oldest first). */
  #onDropped(record: Omit<RawRecord, "bytes">, bytes: number): void {
    this.#dropped[record.source] += bytes;
    this.#droppedUntil = record.timestamp;
    if (record.source !== "stdin" && record.seq > this.#cursors[record.source]) {
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
