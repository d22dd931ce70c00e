/**
 * One program Portal started: its terminal, its records and their cursors,
 * its screen (PTY only) and its place in the lifecycle
 * `running → exited | killed`.
 *
 * @module
 */
import { AnsiStripper } from "./ansi.ts";
import type { IoRecord, RecordStore, Source } from "./record_store.ts";
import type { Screen } from "./screen.ts";
import type { ExitInfo, OutputSource, Terminal } from "../terminal/terminal.ts";

export type Status = "running" | "exited" | "killed";

/** What the caller asked to run, as given (env holds only the caller's additions). */
export interface LaunchSpec {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  pty: boolean;
  timeout_ms: number;
  cols: number;
  rows: number;
}

/** Turns one output stream's raw bytes into stored text: UTF-8, no escapes, no bare CR on a PTY. */
class OutputDecoder {
  #utf8 = new TextDecoder("utf-8", { fatal: false });
  #ansi = new AnsiStripper();
  #dropCR: boolean;

  constructor(dropCR: boolean) {
    this.#dropCR = dropCR;
  }

  decode(bytes?: Uint8Array): string {
    const text = bytes
      ? this.#ansi.push(this.#utf8.decode(bytes, { stream: true }))
      : this.#ansi.push(this.#utf8.decode()) + this.#ansi.flush();
    return this.#dropCR && text.includes("\r") ? text.replaceAll("\r", "") : text;
  }
}

/** A program under Portal's management. */
export class ManagedProcess {
  readonly id: number;
  readonly spec: LaunchSpec;
  readonly startedAt = new Date();
  terminal!: Terminal;
  readonly screen: Screen | undefined;
  status: Status = "running";
  exit: ExitInfo | null = null;
  endedAt: Date | null = null;
  /** Records per source since the last clear. */
  readonly counts: Record<Source, number> = { stdin: 0, stdout: 0, stderr: 0 };
  /** `process_read_new` position per output source (a sequence number). */
  readonly cursors: Record<OutputSource, number> = { stdout: 0, stderr: 0 };
  /** Resolves once the program has ended and its last output is stored. */
  readonly ended: Promise<void>;
  #store: RecordStore;
  #seq = 0;
  #lastTimestamp = -1;
  #endNs: number | undefined;
  #startPerf = performance.now();
  #lastActivity = performance.now();
  #decoders: Record<OutputSource, OutputDecoder>;
  #killing = false;
  #markEnded!: () => void;
  #onEnd: (process: ManagedProcess) => void;

  constructor(
    id: number,
    spec: LaunchSpec,
    store: RecordStore,
    screen: Screen | undefined,
    onEnd: (process: ManagedProcess) => void,
  ) {
    this.id = id;
    this.spec = spec;
    this.screen = screen;
    this.#store = store;
    this.#onEnd = onEnd;
    this.#decoders = { stdout: new OutputDecoder(spec.pty), stderr: new OutputDecoder(spec.pty) };
    this.ended = new Promise((resolve) => this.#markEnded = resolve);
  }

  /** Nanoseconds since the process started; for an ended process, its age at the end. */
  elapsedNs(): number {
    return this.#endNs ?? Math.round((performance.now() - this.#startPerf) * 1e6);
  }

  /** The timestamp of a new record: {@link elapsedNs}, made strictly increasing. */
  #nextTimestamp(): number {
    this.#lastTimestamp = Math.max(this.elapsedNs(), this.#lastTimestamp + 1);
    return this.#lastTimestamp;
  }

  /** Milliseconds since the last read or write. */
  get idleMs(): number {
    return Math.round(performance.now() - this.#lastActivity);
  }

  /** Marks agent interaction (a read or a write), which restarts the idle timeout. */
  touch(): void {
    this.#lastActivity = performance.now();
  }

  /** Backend callback: a chunk of output. */
  onData(source: OutputSource, bytes: Uint8Array): void {
    this.screen?.write(bytes);
    this.#record(source, this.#decoders[source].decode(bytes));
  }

  /** Backend callback: the program ended; everything it wrote has been through {@link onData}. */
  onExit(info: ExitInfo): void {
    for (const source of ["stdout", "stderr"] as const) {
      this.#record(source, this.#decoders[source].decode());
    }
    this.#store.flush();
    this.#endNs = this.#nextTimestamp();
    this.exit = info;
    this.endedAt = new Date();
    this.status = this.#killing ? "killed" : "exited";
    this.#onEnd(this);
    this.#markEnded();
  }

  /** Records what the agent wrote to the program's input. */
  recordInput(content: string): void {
    this.#record("stdin", content);
  }

  /** Ends the program (and its process group or session); resolves once it is gone. */
  async kill(graceMs?: number): Promise<void> {
    if (this.status !== "running") return;
    this.#killing = true;
    await this.terminal.kill(graceMs);
    await this.ended;
  }

  /** Forgets the records (the process stays), and the `process_read_new` cursors with them. */
  clearRecords(): number {
    const removed = this.counts.stdin + this.counts.stdout + this.counts.stderr;
    this.#store.deleteRecords(this.id);
    this.counts.stdin = this.counts.stdout = this.counts.stderr = 0;
    this.cursors.stdout = this.cursors.stderr = 0;
    return removed;
  }

  #record(source: Source, content: string): void {
    if (content === "") return;
    const record: IoRecord = {
      seq: ++this.#seq,
      timestamp: this.#nextTimestamp(),
      source,
      content,
    };
    this.counts[source]++;
    this.#store.append(this.id, record);
  }
}
