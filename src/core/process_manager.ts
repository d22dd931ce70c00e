/**
 * The core of Portal: starts programs, keeps their records, and answers every
 * operation the tools offer. Knows nothing of MCP; every failure is a
 * {@link PortalError} whose message tells the agent what to do instead.
 *
 * @example
 * ```ts
 * const manager = new ProcessManager(new RecordStore(":memory:"));
 * const { id } = manager.start({ command: "python3", args: ["-q"], pty: true });
 * manager.write(id, "1 + 1\n");
 * ```
 * @module
 */
import { resolve } from "node:path";
import { PortalError } from "../errors.ts";
import { type LaunchSpec, ManagedProcess, type Status } from "./managed_process.ts";
import type { IoRecord, RecordStore, Source } from "./record_store.ts";
import { Screen, type ScreenSnapshot } from "./screen.ts";
import { CTRL_BREAK_EVENT, resolveSignal } from "../signals.ts";
import { spawnPipe, spawnPty } from "../platform.ts";

/** Arguments of {@link ProcessManager.start}; all but `command` optional. */
export interface StartRequest {
  command: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  timeout_ms?: number;
  pty?: boolean;
  cols?: number;
  rows?: number;
}

export type ReadSource = "stdout" | "stderr" | "stdin" | "both";
export type TimeUnit = "ns" | "us" | "ms" | "s";
const NS_PER_UNIT: Record<TimeUnit, number> = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 };

/** A page of records. `truncated` means `max_chars` was reached and more records match. */
export interface RecordPage {
  id: number;
  status: Status;
  records: Omit<IoRecord, "seq">[];
  truncated: boolean;
}

/** One line of `process_list`. */
export interface ProcessSummary {
  id: number;
  command: string;
  os_pid: number;
  status: Status;
  pty: boolean;
  timeout_ms: number;
  inactive_duration_ms: number;
  io_count: number;
}

/** Everything known about a process. */
export interface ProcessDetails extends ProcessSummary {
  args: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number | null;
  rows: number | null;
  exit_code: number | null;
  exit_signal: string | null;
  started_at: string;
  ended_at: string | null;
  stdout_count: number;
  stderr_count: number;
  stdin_count: number;
}

/** How a killed process ended. */
export interface KillResult {
  id: number;
  status: Status;
  exit_code: number | null;
  exit_signal: string | null;
}

/** Grace between the polite signal and SIGKILL when a process is killed. */
const KILL_GRACE_MS = 500;

/** The processes of one server instance. */
export class ProcessManager {
  #store: RecordStore;
  #processes = new Map<number, ManagedProcess>();
  #idleTimers = new Map<number, ReturnType<typeof setTimeout>>();
  #nextId = 1;

  constructor(store: RecordStore) {
    this.#store = store;
  }

  /** Starts a program; throws when the command, cwd or sizes are unusable. */
  start(request: StartRequest): ProcessSummary {
    const command = request.command.trim();
    if (command === "") throw new PortalError("command is empty: give an executable to run.");
    checkNames(command, request.args ?? [], request.env ?? {});
    const cwd = resolve(Deno.cwd(), request.cwd ?? ".");
    const spec: LaunchSpec = {
      command,
      args: request.args ?? [],
      cwd,
      env: request.env ?? {},
      pty: request.pty ?? false,
      timeout_ms: request.timeout_ms ?? 0,
      cols: request.cols ?? 80,
      rows: request.rows ?? 24,
    };
    const id = this.#nextId;
    const screen = spec.pty ? new Screen(spec.cols, spec.rows) : undefined;
    const process = new ManagedProcess(id, spec, this.#store, screen, (p) => this.#ended(p));
    // A terminal announces itself as xterm-256color (what the emulator understands) unless
    // the caller says otherwise; the server's own TERM describes some other terminal.
    const term: Record<string, string> = spec.pty ? { TERM: "xterm-256color" } : {};
    const options = { ...spec, env: { ...Deno.env.toObject(), ...term, ...spec.env } };
    try {
      process.terminal = (spec.pty ? spawnPty : spawnPipe)(options, process);
    } catch (error) {
      screen?.dispose();
      throw error;
    }
    this.#nextId++;
    // A real terminal answers the program's queries (cursor position, device attributes).
    screen?.onReply((data) => {
      if (process.status === "running") {
        try {
          process.terminal.write(new TextEncoder().encode(data));
        } catch { /* the program stopped reading: it no longer cares */ }
      }
    });
    this.#processes.set(id, process);
    this.#store.saveProcess(this.#row(process));
    this.#armIdleTimer(process);
    return this.#summary(process);
  }

  /**
   * Records from the last `duration` units of time; for an ended process, the
   * last `duration` of its life (a window ending now would be empty).
   */
  read(
    id: number,
    options: { source?: ReadSource; duration?: number; unit?: TimeUnit; max_chars?: number } = {},
  ): RecordPage {
    const process = this.#get(id);
    this.#touch(process);
    const windowNs = (options.duration ?? 1000) * NS_PER_UNIT[options.unit ?? "ms"];
    const { records, complete } = this.#store.query(id, {
      sources: sourcesOf(options.source ?? "both"),
      sinceTimestamp: Math.max(0, process.elapsedNs() - windowNs),
      maxChars: options.max_chars,
      newest: true,
    });
    return this.#page(process, records, complete);
  }

  /** Records not yet returned by this method for the chosen source(s), oldest first. */
  readNew(
    id: number,
    options: { source?: "stdout" | "stderr" | "both"; max_chars?: number } = {},
  ): RecordPage {
    const process = this.#get(id);
    this.#touch(process);
    const sources = sourcesOf(options.source ?? "both") as ("stdout" | "stderr")[];
    const { records, complete } = this.#store.query(id, {
      sources,
      afterSeq: process.cursors,
      maxChars: options.max_chars,
    });
    const last = records.at(-1);
    // Every matching record up to `last` was returned, so each cursor may move up to it.
    if (last) { for (const source of sources) process.cursors[source] = last.seq; }
    return this.#page(process, records, complete);
  }

  /** Writes to the program's input and records it as `stdin`; `eof` then ends the input. */
  write(id: number, content: string, eof = false): { id: number; bytes_written: number } {
    const process = this.#running(id, "write to");
    this.#touch(process);
    const bytes = new TextEncoder().encode(content);
    if (bytes.length > 0) {
      process.terminal.write(bytes);
      process.recordInput(content);
    }
    if (eof) process.terminal.endInput();
    return { id, bytes_written: bytes.length };
  }

  /** Sends a signal; on a PTY it goes to the terminal's foreground process group. */
  signal(
    id: number,
    signal: string | number,
  ): { id: number; signal: string; delivered_to: string } {
    const process = this.#running(id, "signal");
    const resolved = resolveSignal(signal);
    const pty = process.spec.pty;
    if (resolved.number === null) {
      const isBreak = resolved.name === CTRL_BREAK_EVENT;
      if (pty) {
        // What the keyboard sends: ^C (VINTR) or ^\ (VQUIT); the line discipline signals.
        process.terminal.write(new Uint8Array([isBreak ? 0x1c : 0x03]));
        return {
          id,
          signal: resolved.name,
          delivered_to: `terminal input (${isBreak ? "^\\" : "^C"})`,
        };
      }
      const equivalent = resolveSignal(
        isBreak ? (Deno.build.os === "windows" ? "SIGBREAK" : "SIGQUIT") : "SIGINT",
      );
      process.terminal.signal(equivalent.number!);
      return { id, signal: equivalent.name, delivered_to: "process group" };
    }
    process.terminal.signal(resolved.number);
    return {
      id,
      signal: resolved.name,
      delivered_to: pty ? "foreground process group of the terminal" : "process group",
    };
  }

  list(): ProcessSummary[] {
    return [...this.#processes.values()].map((p) => this.#summary(p));
  }

  inspect(id: number): ProcessDetails {
    const p = this.#get(id);
    return {
      ...this.#summary(p),
      args: p.spec.args,
      cwd: p.spec.cwd,
      env: p.spec.env,
      cols: p.screen ? (p.spec.cols) : null,
      rows: p.screen ? (p.spec.rows) : null,
      exit_code: p.exit?.code ?? null,
      exit_signal: p.exit?.signal ?? null,
      started_at: p.startedAt.toISOString(),
      ended_at: p.endedAt?.toISOString() ?? null,
      stdout_count: p.counts.stdout,
      stderr_count: p.counts.stderr,
      stdin_count: p.counts.stdin,
    };
  }

  /** Kills a running process and its process group (PTY: its whole session); records stay. */
  async kill(id: number): Promise<KillResult> {
    const process = this.#running(id, "kill");
    await process.kill(KILL_GRACE_MS);
    return {
      id,
      status: process.status,
      exit_code: process.exit?.code ?? null,
      exit_signal: process.exit?.signal ?? null,
    };
  }

  /** Kills every running process at once; records stay. */
  async killAll(): Promise<{ killed: number[] }> {
    const running = [...this.#processes.values()].filter((p) => p.status === "running");
    await Promise.all(running.map((p) => p.kill(KILL_GRACE_MS)));
    return { killed: running.map((p) => p.id) };
  }

  /** Deletes a process's records; the process itself goes on. */
  clear(id: number): { id: number; cleared: number } {
    return { id, cleared: this.#get(id).clearRecords() };
  }

  /** Removes an ended process and everything stored about it. */
  cleanup(id: number): { id: number; removed: true } {
    const process = this.#get(id);
    if (process.status === "running") {
      throw new PortalError(
        `Process ${id} is still running: call process_kill first (or wait for it to exit), ` +
          "then process_cleanup.",
      );
    }
    this.#remove(process);
    return { id, removed: true };
  }

  /** The rendered screen of a PTY process; `cols`/`rows` resize the terminal first. */
  async screen(
    id: number,
    options: {
      buffer?: "primary" | "alternate";
      cols?: number;
      rows?: number;
      scrollback?: number;
    } = {},
  ): Promise<ScreenSnapshot> {
    const process = this.#get(id);
    const screen = process.screen;
    if (!screen) {
      throw new PortalError(
        `Process ${id} runs on pipes, which have no screen: read its output with process_read ` +
          "or process_read_new, or start the program with pty: true to get a screen.",
      );
    }
    this.#touch(process);
    if (options.cols !== undefined || options.rows !== undefined) {
      if (process.status !== "running") {
        throw new PortalError(
          `Process ${id} has ${process.status}; its last screen can be read but not resized. ` +
            "Call process_screen without cols/rows.",
        );
      }
      const cols = options.cols ?? process.spec.cols;
      const rows = options.rows ?? process.spec.rows;
      process.terminal.resize(cols, rows);
      screen.resize(cols, rows);
      process.spec.cols = cols;
      process.spec.rows = rows;
    }
    return await screen.snapshot({ buffer: options.buffer, scrollback: options.scrollback });
  }

  /** Kills every running process (server shutdown) and closes the store. */
  async shutdown(): Promise<void> {
    const running = [...this.#processes.values()].filter((p) => p.status === "running");
    await Promise.all(running.map((p) => p.kill(KILL_GRACE_MS)));
    this.#store.close();
  }

  #get(id: number): ManagedProcess {
    const process = this.#processes.get(id);
    if (!process) {
      throw new PortalError(
        `No process with id ${id}` +
          (id < this.#nextId ? " (it was cleaned up, or removed by its idle timeout)" : "") +
          ". Call process_list to see the current ids.",
      );
    }
    return process;
  }

  #running(id: number, verb: string): ManagedProcess {
    const process = this.#get(id);
    if (process.status !== "running") {
      const how = process.exit?.signal
        ? `by signal ${process.exit.signal}`
        : `with code ${process.exit?.code}`;
      throw new PortalError(
        `Cannot ${verb} process ${id}: it has ${process.status} (${how}). Its records can still be ` +
          "read with process_read or process_read_new; start it again with process_start.",
      );
    }
    return process;
  }

  #touch(process: ManagedProcess): void {
    process.touch();
    this.#armIdleTimer(process);
  }

  /** The idle timeout: no read or write for `timeout_ms` → kill and remove all data. */
  #armIdleTimer(process: ManagedProcess): void {
    clearTimeout(this.#idleTimers.get(process.id));
    if (process.spec.timeout_ms <= 0 || process.status !== "running") return;
    const timer = setTimeout(async () => {
      this.#idleTimers.delete(process.id);
      await process.kill(KILL_GRACE_MS);
      if (this.#processes.get(process.id) === process) this.#remove(process);
    }, process.spec.timeout_ms);
    Deno.unrefTimer(timer);
    this.#idleTimers.set(process.id, timer);
  }

  #ended(process: ManagedProcess): void {
    clearTimeout(this.#idleTimers.get(process.id));
    this.#idleTimers.delete(process.id);
    if (this.#processes.get(process.id) === process) this.#store.saveProcess(this.#row(process));
  }

  #remove(process: ManagedProcess): void {
    this.#processes.delete(process.id);
    this.#store.deleteProcess(process.id);
    process.screen?.dispose();
  }

  #page(process: ManagedProcess, records: IoRecord[], complete: boolean): RecordPage {
    return {
      id: process.id,
      status: process.status,
      records: records.map(({ timestamp, source, content }) => ({ timestamp, source, content })),
      truncated: !complete,
    };
  }

  #summary(p: ManagedProcess): ProcessSummary {
    return {
      id: p.id,
      command: p.spec.command,
      os_pid: p.terminal.pid,
      status: p.status,
      pty: p.spec.pty,
      timeout_ms: p.spec.timeout_ms,
      inactive_duration_ms: p.idleMs,
      io_count: p.counts.stdin + p.counts.stdout + p.counts.stderr,
    };
  }

  #row(p: ManagedProcess) {
    return {
      id: p.id,
      ...p.spec,
      os_pid: p.terminal.pid,
      status: p.status,
      exit_code: p.exit?.code ?? null,
      exit_signal: p.exit?.signal ?? null,
      started_at: p.startedAt.toISOString(),
      ended_at: p.endedAt?.toISOString() ?? null,
    };
  }
}

function sourcesOf(source: ReadSource): Source[] {
  return source === "both" ? ["stdout", "stderr"] : [source];
}

/** What exec can't carry: NUL anywhere, or an `=` or empty variable name. */
function checkNames(command: string, args: string[], env: Record<string, string>): void {
  if ([command, ...args].some((text) => text.includes("\0"))) {
    throw new PortalError("command and args must not contain NUL characters.");
  }
  for (const [name, value] of Object.entries(env)) {
    if (name === "" || name.includes("=") || name.includes("\0") || value.includes("\0")) {
      throw new PortalError(
        `Invalid environment variable ${JSON.stringify(name)}: names must be non-empty ` +
          "without '=', and neither names nor values may contain NUL.",
      );
    }
  }
}
