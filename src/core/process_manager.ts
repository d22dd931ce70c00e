/**
 * The core of Portal: the processes of one server, by id. It starts
 * programs, routes each operation to its {@link ManagedProcess}, keeps the
 * idle timers, and words what goes wrong for the agent. It knows nothing of
 * the MCP protocol, but its messages speak the tools' vocabulary (they name
 * process_list, process_kill, …), because the agent acts on them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ProcessManager } from "./process_manager.ts";
 * import { RecordStore } from "./record_store.ts";
 *
 * const manager = new ProcessManager(new RecordStore(":memory:"));
 * const { id, status } = manager.start({ command: "sleep", args: ["10"] });
 * assert.equal(status, "running");
 * assert.equal((await manager.kill(id)).status, "killed");
 * await manager.shutdown();
 * ```
 * @module
 */
import { resolve } from "node:path";
import { PortalError } from "../errors.ts";
import { withTimeout } from "../async.ts";
import {
  DEFAULT_READ_WINDOW_MS,
  KILL_DEADLINE_MS,
  KILL_GRACE_MS,
  SHUTDOWN_DEADLINE_MS,
  TERMINAL_SIZE,
} from "../limits.ts";
import { CTRL_BREAK_EVENT, resolveSignal } from "../signals.ts";
import { ManagedProcess } from "./managed_process.ts";
import type { RecordStore } from "./record_store.ts";
import {
  type KillAllResult,
  type KillResult,
  killResult,
  type ProcessDetails,
  type ProcessSummary,
  processSummary,
  project,
  type RecordPage,
  type ScreenRequest,
  type ScreenSnapshot,
  type Source,
  type StartRequest,
} from "./schema.ts";

export type ReadSource = Source | "both";
export type TimeUnit = "ns" | "us" | "ms" | "s";
const NS_PER_UNIT: Record<TimeUnit, number> = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 };

/** The next process id; managers that share a store share one (its rows are keyed by id). */
export interface IdCounter {
  next: number;
}

/** The processes of one server instance (over HTTP: of one session). */
export class ProcessManager {
  #store: RecordStore;
  #processes = new Map<number, ManagedProcess>();
  #idleTimers = new Map<number, ReturnType<typeof setTimeout>>();
  #ids: IdCounter;

  constructor(store: RecordStore, ids: IdCounter = { next: 1 }) {
    this.#store = store;
    this.#ids = ids;
  }

  get #nextId(): number {
    return this.#ids.next;
  }

  set #nextId(id: number) {
    this.#ids.next = id;
  }

  /** Starts a program; throws when the command, cwd or sizes are unusable. */
  start(request: StartRequest): ProcessSummary {
    const spec = {
      command: request.command.trim(),
      args: request.args ?? [],
      cwd: resolve(Deno.cwd(), request.cwd ?? "."),
      env: request.env ?? {},
      pty: request.pty ?? false,
      timeout_ms: request.timeout_ms ?? 0,
      cols: request.cols ?? TERMINAL_SIZE.defaultCols,
      rows: request.rows ?? TERMINAL_SIZE.defaultRows,
    };
    const process = new ManagedProcess(this.#nextId, spec, this.#store, (p) => this.#ended(p));
    this.#nextId++;
    this.#processes.set(process.id, process);
    this.#store.saveProcess(process.describe());
    this.#armIdleTimer(process);
    return project(processSummary, process.describe());
  }

  /**
   * Records from the last `duration` units of time; for an ended process, the
   * last `duration` of its life (a window ending now would be empty).
   */
  read(
    id: number,
    options: { source?: ReadSource; duration?: number; unit?: TimeUnit; max_chars?: number } = {},
  ): RecordPage {
    const process = this.#touch(this.#get(id));
    return process.read({
      sources: sourcesOf(options.source ?? "both"),
      windowNs: (options.duration ?? DEFAULT_READ_WINDOW_MS) * NS_PER_UNIT[options.unit ?? "ms"],
      maxChars: options.max_chars,
    });
  }

  /** Records not yet returned by this method for the chosen source(s), oldest first. */
  readNew(
    id: number,
    options: { source?: "stdout" | "stderr" | "both"; max_chars?: number } = {},
  ): RecordPage {
    const process = this.#touch(this.#get(id));
    return process.readNew({
      sources: sourcesOf(options.source ?? "both"),
      maxChars: options.max_chars,
    });
  }

  /** Writes to the program's input and records it as `stdin`; `eof` then ends the input. */
  write(id: number, content: string, eof = false): { id: number; bytes_written: number } {
    const process = this.#touch(this.#running(id, "write to"));
    const bytes_written = process.write(content);
    if (eof) process.endInput();
    return { id, bytes_written };
  }

  /** Sends a signal; on a PTY it goes to the terminal's foreground process group. */
  signal(
    id: number,
    signal: string | number,
  ): { id: number; signal: string; delivered_to: string } {
    const process = this.#running(id, "signal");
    const resolved = resolveSignal(signal);
    if (resolved.number === null) {
      const kind = resolved.name === CTRL_BREAK_EVENT ? "ctrl_break" : "ctrl_c";
      return { id, ...process.interrupt(kind) };
    }
    return { id, signal: resolved.name, delivered_to: process.signal(resolved.number) };
  }

  list(): ProcessSummary[] {
    return [...this.#processes.values()].map((p) => project(processSummary, p.describe()));
  }

  inspect(id: number): ProcessDetails {
    return this.#get(id).describe();
  }

  /**
   * Kills a running process and its process group (PTY: its whole session);
   * records stay. For a process that has ended, kills its leftovers (what it
   * started that still runs); with none, it is an error.
   */
  async kill(id: number): Promise<KillResult> {
    const process = this.#get(id);
    if (process.status !== "running" && !process.hasLeftovers) {
      throw this.#notRunning(process, "kill", " and nothing it started is still running");
    }
    await this.#kill(process);
    return project(killResult, process.describe());
  }

  /**
   * Kills every running process and the leftovers of every ended one, all at
   * once; records stay. One that cannot be killed is reported, never stops the rest.
   */
  async killAll(): Promise<KillAllResult> {
    const targets = this.#killable();
    const wasRunning = targets.map((p) => p.status === "running");
    const outcomes = await Promise.allSettled(targets.map((p) => this.#kill(p)));
    const result: KillAllResult = { killed: [], leftovers_killed: [], failed: [] };
    outcomes.forEach((outcome, i) => {
      const { id } = targets[i];
      if (outcome.status === "rejected") {
        result.failed.push({
          id,
          error: (outcome.reason as Error)?.message ?? String(outcome.reason),
        });
      } else (wasRunning[i] ? result.killed : result.leftovers_killed).push(id);
    });
    return result;
  }

  /** Kills `process` (see {@link kill}), or throws once it outlives SIGKILL by too long. */
  async #kill(process: ManagedProcess): Promise<void> {
    const gone = await withTimeout(
      process.kill(KILL_GRACE_MS).then(() => true),
      KILL_DEADLINE_MS,
      false,
    );
    if (!gone) {
      const seconds = KILL_DEADLINE_MS / 1000;
      throw new PortalError(
        `Process ${process.id} (pid ${process.pid}) or what it started is not gone ${seconds} s ` +
          "after SIGKILL: something holds it (a debugger attached to it, or uninterruptible " +
          "sleep on a hung disk or network file system). Call process_kill again later.",
      );
    }
  }

  /** Deletes a process's records; the process itself goes on. */
  clear(id: number): { id: number; cleared: number } {
    return { id, cleared: this.#get(id).clearRecords() };
  }

  /**
   * Removes an ended process and everything stored about it, after killing
   * its leftovers (nothing may outlive its id).
   */
  async cleanup(id: number): Promise<{ id: number; removed: true }> {
    const process = this.#get(id);
    if (process.status === "running") {
      throw new PortalError(
        `Process ${id} is still running: call process_kill first (or wait for it to exit), ` +
          "then process_cleanup.",
      );
    }
    if (process.hasLeftovers) await this.#kill(process);
    if (this.#processes.get(id) === process) this.#remove(process);
    return { id, removed: true };
  }

  /** The rendered screen of a PTY process; `cols`/`rows` resize the terminal first. */
  async screen(id: number, options: ScreenRequest = {}): Promise<ScreenSnapshot> {
    const process = this.#get(id);
    if (!process.hasScreen) {
      throw new PortalError(
        `Process ${id} runs on pipes, which have no screen: read its output with process_read ` +
          "or process_read_new, or start the program with pty: true to get a screen.",
      );
    }
    this.#touch(process);
    const { cols, rows, ...view } = options;
    if (cols !== undefined || rows !== undefined) {
      if (process.status !== "running") {
        throw new PortalError(
          `Process ${id} has ended (${process.status}); its last screen can be read but not ` +
            "resized. Call process_screen without cols/rows.",
        );
      }
      const size = process.describe();
      process.resize(cols ?? size.cols!, rows ?? size.rows!);
    }
    return await process.screen(view);
  }

  /**
   * Server shutdown: kills every running process and every leftover, waiting
   * at most `deadlineMs` for them, then closes the store whichever won, so
   * every record written so far is committed.
   */
  async shutdown(deadlineMs = SHUTDOWN_DEADLINE_MS): Promise<void> {
    try {
      const killing = Promise.allSettled(this.#killable().map((p) => p.kill(KILL_GRACE_MS)));
      await withTimeout(killing, deadlineMs, undefined);
    } finally {
      // The screens read from the store as they catch up: they go first.
      for (const process of this.#processes.values()) process.dispose();
      this.#store.close();
    }
  }

  /** Running processes, and ended ones with leftovers. */
  #killable(): ManagedProcess[] {
    return [...this.#processes.values()].filter((p) => p.status === "running" || p.hasLeftovers);
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
    if (process.status === "running") return process;
    throw this.#notRunning(process, verb);
  }

  #notRunning(process: ManagedProcess, verb: string, more = ""): PortalError {
    const how = process.exit?.signal
      ? `by signal ${process.exit.signal}`
      : `with code ${process.exit?.code}`;
    const state = process.status === "killed" ? "it was killed" : "it has exited";
    return new PortalError(
      `Cannot ${verb} process ${process.id}: ${state} (${how})${more}. Its records can still ` +
        "be read with process_read or process_read_new; start it again with process_start.",
    );
  }

  /** Marks agent interaction, which restarts the idle timeout. */
  #touch(process: ManagedProcess): ManagedProcess {
    process.touch();
    this.#armIdleTimer(process);
    return process;
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
    if (this.#processes.get(process.id) === process) this.#store.saveProcess(process.describe());
  }

  #remove(process: ManagedProcess): void {
    this.#processes.delete(process.id);
    this.#store.deleteProcess(process.id);
    process.dispose();
  }
}

function sourcesOf(source: ReadSource): Source[] {
  return source === "both" ? ["stdout", "stderr"] : [source];
}
