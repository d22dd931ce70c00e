/**
 * The core of Portal: the processes one session (one client) sees in its
 * server's {@link ProcessPool}, by id (session_view.ts). It starts programs
 * (the pool gives their ids and keeps their idle timers), routes each
 * operation to its {@link ManagedProcess}, and words what goes wrong for the
 * agent. It knows nothing of the MCP protocol, but its messages speak the tools' vocabulary (they name
 * process_list, process_kill, …), because the agent acts on them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ProcessManager } from "./manager.ts";
 * import { ProcessPool } from "./pool.ts";
 * import { portalPlace } from "../policy/sandbox_rules.ts";
 * import { RecordStore } from "../store/record_store.ts";
 *
 * const pool = new ProcessPool(new RecordStore(":memory:"), portalPlace({}, ":memory:"));
 * const manager = new ProcessManager(pool);
 * const { id, status } = await manager.start({ command: "sleep", args: ["10"] });
 * assert.equal(status, "running");
 * const sh = await manager.start({ command: "sh", args: ["-c", "read x; echo got $x"] });
 * const step = await manager.write(sh.id, { content: "hi\n", wait: "exit" });
 * assert.ok("reason" in step); // A reply, not a question for the person (secret_prompt).
 * assert.deepEqual([step.reason, step.output, step.exit_code], ["exit", "got hi\n", 0]);
 * assert.equal((await manager.kill(id)).status, "killed");
 * await manager.shutdown();
 * ```
 * @module
 */
import { PortalError } from "../../errors.ts";
import { withTimeout } from "../../async.ts";
import {
  DEFAULT_READ_WINDOW_MS,
  MAX_CHARS,
  SHUTDOWN_DEADLINE_MS,
  STOP_DEADLINE_MS,
} from "../../limits.ts";
import { sleep } from "../../platform.ts";
import { CTRL_BREAK_EVENT, resolveSignal } from "../../signals.ts";
import type { ManagedProcess } from "./managed_process.ts";
import type { WatchedProcess } from "../watch/watched_process.ts";
import type { ProcessPool, Session } from "./pool.ts";
import { notRunning, SessionView } from "./session_view.ts";
import { killEach, killWithin } from "./killing.ts";
import { checkWriteRequest, personIsTyping, type WriteRequest } from "./write_request.ts";
import {
  type KillAllResult,
  type KillResult,
  killResult,
  launchSpec,
  type ProcessDetails,
  type ProcessSummary,
  processSummary,
  project,
  type RecordPage,
  type ScreenRequest,
  type ScreenSnapshot,
  type Source,
  type StartRequest,
  type StepReply,
} from "../model/schema.ts";
import { Pattern } from "../pattern/pattern.ts";
import {
  type CallControl,
  type NeedsInput,
  needsInput,
  prepareStep,
  runStep,
  type Step,
  type StepKind,
  type StepRequest,
  type Typing,
} from "../steps/step.ts";
import type { LineRequest, LinesPage } from "./output.ts";
import { Pacing } from "../steps/pacing.ts";
import { secretOf } from "../input/secret_request.ts";
import type { OutputSource } from "../../terminal/terminal.ts";

export type ReadSource = Source | "both";
export type TimeUnit = "ns" | "us" | "ms" | "s";
const NS_PER_UNIT: Record<TimeUnit, number> = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 };
const BOTH: OutputSource[] = ["stdout", "stderr"];
/** The steps of process_start (process_read_new's, on its sources) and of process_write. */
const START_STEP: StepKind = { defaultWait: "none", sources: BOTH, expectIn: "unread" };
const WRITE_STEP: StepKind = { defaultWait: "ready", sources: BOTH, expectIn: "new" };

/**
 * The processes one session sees: those it started, the kept ones, and those
 * no live session owns (`session.seesAll`: every one).
 */
export class ProcessManager {
  readonly #pool: ProcessPool;
  readonly session: Session;
  readonly #view: SessionView;

  constructor(pool: ProcessPool, session: Session = {}) {
    this.#pool = pool;
    this.session = session;
    this.#view = new SessionView(pool, session);
  }

  /**
   * Starts a program (throws when the command, cwd, sizes or patterns are
   * unusable) and, if asked, waits for it like process_write does.
   */
  async start(
    request: StartRequest & StepRequest,
    control: CallControl = {},
  ): Promise<ProcessSummary & Partial<Omit<StepReply, "command" | "commands">>> {
    const prompt = request.prompt ? Pattern.compile(request.prompt, "prompt") : null;
    const step = prepareStep(request, START_STEP, control);
    const spec = launchSpec(request, this.session.environment?.cwd ?? Deno.cwd());
    this.#view.checkName(spec.name);
    const process = this.#pool.start(spec, this.session, prompt);
    // `command` there is the program; no shell command can have finished before the first input.
    const { command: _, commands: __, ...reply } = await this.#step(process, step, control);
    // As it is once the wait ended: a program that exited meanwhile is no longer running.
    return { ...project(processSummary, process.describe()), ...reply };
  }

  /**
   * Records from the last `duration` units of time; for an ended process, the
   * last `duration` of its life (a window ending now would be empty).
   */
  read(
    id: number,
    options:
      & { source?: ReadSource; duration?: number; unit?: TimeUnit; max_chars?: number }
      & LineRequest = {},
  ): RecordPage | Promise<LinesPage> {
    const process = this.#pool.touch(this.#view.get(id));
    const sources = sourcesOf(options.source ?? "both");
    const maxChars = options.max_chars ?? MAX_CHARS.default;
    const windowNs = (options.duration ?? DEFAULT_READ_WINDOW_MS) *
      NS_PER_UNIT[options.unit ?? "ms"];
    if ([options.pattern, options.line, options.context].some((given) => given !== undefined)) {
      const lines = { ...options, sources, maxChars, windowNs: options.duration && windowNs };
      return process.output.lines(lines).then((page) => this.#answer(process, page));
    }
    const page = process.output.read({ sources, windowNs, maxChars, encoding: options.encoding });
    return this.#answer(process, page);
  }

  /**
   * Output not yet returned to the agent, oldest first: as records, or with
   * a wait, as one text once the wait ends (see process_write).
   */
  async readNew(
    id: number,
    options: { source?: OutputSource | "both"; max_chars?: number } & StepRequest = {},
    control: CallControl = {},
  ): Promise<Omit<RecordPage, "records"> & Partial<RecordPage> & StepReply> {
    const process = this.#pool.touch(this.#view.get(id));
    const sources = sourcesOf(options.source ?? "both") as OutputSource[];
    const step = prepareStep(options, { ...START_STEP, sources }, control);
    if (step.wait === "none") {
      const page = process.output.readNew({
        sources,
        maxChars: options.max_chars ?? MAX_CHARS.default,
      });
      const state = process.state(step.quietMs);
      return this.#answer(process, { ...page, state, reason: "none" as const });
    }
    const reply = await this.#step(process, step, control);
    return {
      id,
      status: process.status,
      ...reply,
      truncated: reply.truncated ?? false,
      dropped_bytes: reply.dropped_bytes ?? 0,
    };
  }

  /**
   * Types `content` (line by line at a person's pace, pacing.ts, unless the
   * step waits for nothing; or pasted), a secret (secret_request.ts), then
   * `keys` (recorded as `stdin`, secrets masked); `eof` then ends the input.
   * Waits as asked (default: until the program reads again) and replies
   * with the new output; or, when the person is asked by the call's reply
   * (secret_prompt over rounds), with the question, nothing typed.
   */
  async write(
    id: number,
    request: WriteRequest,
    control: CallControl = {},
  ): Promise<
    | (
      & {
        id: number;
        bytes_written: number;
        pasted?: boolean;
        shell_integration?: "active" | "off";
      }
      & StepReply
    )
    | NeedsInput
  > {
    const { content = "", keys = [], eof = false, paste, integrate = false } = request;
    checkWriteRequest(request);
    const step = prepareStep(request, WRITE_STEP, control);
    const process = this.#pool.touch(this.#view.running(id, "write to"));
    if (process.watched.controlledBy === "person") throw personIsTyping(id);
    if (integrate) {
      return await this.#pool.holding(process, async () => {
        const bytes_written = await process.input.integrate();
        const reply = await this.#reply(process, step, control);
        return { id, bytes_written, ...reply, shell_integration: process.shellIntegration };
      });
    }
    const secret = await secretOf(request, control, process, this.session.environment?.env);
    // The person is asked by the call's reply: nothing is typed in this one.
    if (needsInput(secret)) return secret;
    return await this.#pool.holding(process, async () => {
      const pacing = step.wait === "none" ? null : new Pacing(process, step, control);
      try {
        const typed = { content, keys, secret, paste };
        const { written, echo, ...pasted } = await process.input.type(typed, pacing?.next);
        if (eof) process.input.endInput();
        const typing = pacing ? { ...pacing.finish(), echo } : undefined;
        const reply = await this.#reply(process, step, control, typing);
        return { id, bytes_written: written, ...pasted, ...reply };
      } finally {
        pacing?.finish();
      }
    });
  }

  /** Sends a signal; on a PTY it goes to the terminal's foreground process group. */
  async signal(
    id: number,
    signal: string | number,
  ): Promise<{ id: number; signal: string; delivered_to: string }> {
    const process = this.#view.running(id, "signal");
    const resolved = resolveSignal(signal);
    if (resolved.number === null) {
      const kind = resolved.name === CTRL_BREAK_EVENT ? "ctrl_break" : "ctrl_c";
      return { id, ...process.input.interrupt(kind) };
    }
    const delivered_to = process.input.signal(resolved.number);
    // SIGSTOP cannot be caught, but the program stops only once it runs again: the reply waits
    // for that (where the OS shows it), so the next call sees it stopped.
    if (resolved.name === "SIGSTOP") await stopped(process);
    return { id, signal: resolved.name, delivered_to };
  }

  list(): ProcessSummary[] {
    return this.#view.visible().map((p) => project(processSummary, p.describe()));
  }

  inspect(id: number): ProcessDetails {
    const process = this.#view.get(id);
    return this.#answer(process, process.describe());
  }

  /**
   * The last line process `id` wrote in the last hour (stdout and stderr, at
   * most 200 characters): what a long wait shows. Touches nothing: no timer,
   * no cursor.
   */
  lastLine(id: number): string {
    const { records } = this.#view.get(id).output.read({
      sources: BOTH,
      windowNs: 3600e9,
      maxChars: 400,
    });
    const text = records.map((record) => record.content).join("").trimEnd();
    return text.slice(text.lastIndexOf("\n") + 1).slice(-200);
  }

  /** A process as its watch page sees it (nothing the page does counts as the agent's call). */
  watched(id: number): WatchedProcess {
    return this.#view.get(id).watched;
  }

  /** Every process, as watch pages list them. */
  watchedAll(): WatchedProcess[] {
    return this.#view.visible().map((p) => p.watched);
  }

  /**
   * Kills a running process and its process group (PTY: its whole session);
   * records stay. For a process that has ended, kills its leftovers (what it
   * started that still runs); with none, it is an error.
   */
  async kill(id: number): Promise<KillResult> {
    const process = this.#view.get(id);
    if (process.status !== "running" && !process.hasLeftovers) {
      throw notRunning(process, "kill", " and nothing it started is still running");
    }
    await killWithin(process);
    return project(killResult, process.describe());
  }

  /**
   * Kills every running process of this session and the leftovers of every
   * ended one, all at once (a session that sees all: every one); records
   * stay. Kept processes of other sessions still run, and are listed. One
   * that cannot be killed is reported, never stops the rest.
   */
  async killAll(): Promise<KillAllResult> {
    const { own, left } = this.#view.killableOwn();
    return { ...await killEach(own), left_running: left.map((p) => p.id) };
  }

  /** Deletes a process's records; the process itself goes on. */
  clear(id: number): { id: number; cleared: number } {
    return { id, cleared: this.#view.get(id).clearRecords() };
  }

  /**
   * Removes an ended process and everything stored about it, after killing
   * its leftovers (nothing may outlive its id).
   */
  async cleanup(id: number): Promise<{ id: number; removed: true }> {
    const process = this.#view.get(id);
    if (process.status === "running") {
      throw new PortalError(
        `Process ${id} is still running: call process_kill first (or wait for it to exit), ` +
          "then process_cleanup.",
        "conflict",
        { id },
      );
    }
    if (process.hasLeftovers) await killWithin(process);
    if (this.#pool.get(id)?.process === process) this.#pool.remove(process, "cleaned up");
    return { id, removed: true };
  }

  /** The rendered screen of a PTY process; `cols`/`rows` resize the terminal first. */
  async screen(id: number, options: ScreenRequest = {}): Promise<ScreenSnapshot> {
    const process = this.#view.get(id);
    if (!process.hasScreen) {
      throw new PortalError(
        `Process ${id} runs on pipes, which have no screen: read its output with process_read ` +
          "or process_read_new, or start the program with pty: true to get a screen.",
        "unsupported",
        { id },
      );
    }
    this.#pool.touch(process);
    const { cols, rows, ...view } = options;
    if (cols !== undefined || rows !== undefined) {
      if (process.status !== "running") {
        throw new PortalError(
          `Process ${id} has ended (${process.status}); its last screen can be read but not ` +
            "resized. Call process_screen without cols/rows.",
          "ended",
          { id },
        );
      }
      process.resize(cols, rows);
    }
    return this.#answer(process, await process.screen(view));
  }

  /**
   * Server shutdown: kills every running process and every leftover, waiting
   * at most {@link SHUTDOWN_DEADLINE_MS} for them, then closes the store
   * whichever won, so every record written so far is committed.
   */
  async shutdown(): Promise<void> {
    try {
      const killing = Promise.allSettled(this.#view.killable().map((p) => p.kill()));
      await withTimeout(killing, SHUTDOWN_DEADLINE_MS, undefined);
    } finally {
      // The screens read from the store as they catch up: they go first.
      for (const process of this.#view.visible()) process.dispose();
      this.#pool.store.close();
    }
  }

  /** Runs one waiting step; the idle timeout holds off while the agent waits. */
  #step(process: ManagedProcess, step: Step, control: CallControl): Promise<StepReply> {
    return this.#pool.holding(process, () => this.#reply(process, step, control));
  }

  /** A step's reply (after `typing`, for a write), with what a person typed meanwhile. */
  async #reply(
    process: ManagedProcess,
    step: Step,
    control: CallControl,
    typing?: Typing,
  ): Promise<StepReply> {
    return this.#answer(process, await runStep(process, step, control, typing));
  }

  /**
   * `reply` about `process`, with what a person typed into it since the
   * agent's last reply about it: the one place that hands it over.
   */
  #answer<T extends object>(process: ManagedProcess, reply: T): T & { person_input?: string } {
    return { ...reply, ...process.watched.takePersonInput() };
  }
}

function sourcesOf(source: ReadSource): Source[] {
  return source === "both" ? ["stdout", "stderr"] : [source];
}

/** Resolves once the kernel shows `process` stopped, it ends, or {@link STOP_DEADLINE_MS} pass. */
async function stopped(process: ManagedProcess): Promise<void> {
  const deadline = performance.now() + STOP_DEADLINE_MS;
  while (process.running && performance.now() < deadline) {
    const { activity } = process.inputState();
    if (activity === "stopped" || activity === "unknown") return;
    await sleep(1);
  }
}
