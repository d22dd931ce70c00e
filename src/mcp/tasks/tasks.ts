/**
 * Long waits as MCP tasks: the table of one server process's tasks (the
 * host's, or a `--no-host` or HTTP server's), made once by the server's
 * wiring on a {@link TaskStore} and handed to every MCP server it builds.
 * Both revisions of MCP tasks are served from it (wire.ts shapes each):
 *
 * - 2026-07-28's extension `io.modelcontextprotocol/tasks`: when a request's
 *   client declares it, a waiting call (`process_write`, `process_read_new`,
 *   `process_start` with a wait) still going after `PORTAL_TASK_AFTER_MS`
 *   (default {@link TASKS}.afterMs) answers `resultType: "task"` with a task
 *   id instead of its reply ({@link Tasks.start} `"later"`);
 * - 2025-11-25's tasks (SEP-1732, what VS Code sends): a `tools/call` with
 *   `params.task` is a task at once ({@link Tasks.start} `"now"`).
 *
 * Either way the wait goes on up to {@link TASKS}.waitMaxMs (the synchronous
 * cap stays `wait_ms` ≤ 300 s); {@link Tasks.get} tells how it is going (a
 * `statusMessage` a person can read: the time waited, the program's state
 * and last line) and, once `completed`, gives exactly the reply the call
 * would have given; {@link Tasks.cancel} ends the wait, not the program.
 * Every status change reaches the {@link Tasks.watch}ers (notifications).
 *
 * A status moves as both revisions say: `working` ⇄ `input_required`, then
 * one of {@link ENDED}, never left. When the program stops at a password
 * prompt and the client can be asked, the task's questions (questions.ts)
 * ask the person and move it to `input_required` while they do.
 *
 * A task outlives the client that started it: any client of the server
 * with its id (random, unguessable) may poll it. Each is written to the
 * store before its id is handed out, and again at each status change: after
 * a restart {@link Tasks.get} still gives its reply, or says the wait was
 * cut short. A task is kept {@link TASKS}.keptMs after it ends, and at most
 * {@link TASKS}.max are (the oldest ended one goes first; when none has
 * ended, a 2026-07-28 call is not made a task and waits as it would have).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Tasks } from "./tasks.ts";
 *
 * const tasks = new Tasks({ afterMs: 0 });
 * const { promise, resolve } = Promise.withResolvers<{ content: [] }>();
 * const started = await tasks.start(() => promise, { tool: "process_write" }, "now");
 * assert.ok("task" in started);
 * assert.equal(tasks.get(started.task.taskId).status, "working");
 * resolve({ content: [] });
 * assert.equal((await tasks.ended(started.task.taskId)).status, "completed");
 * tasks.close();
 * ```
 * @module
 */
import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/server";
import { abortable, settlesWithin } from "../../async.ts";
import { hasEnded, type TaskStatus, type TaskStore } from "../../core/steps/task_file.ts";
import { TASKS } from "../../limits.ts";
import type { Questions, QuestionsListener } from "./questions.ts";
import {
  fromRow,
  statusMessage,
  type Task,
  type TaskProgress,
  type TaskView,
  toRow,
} from "./task.ts";

/** The work of a call made a task: ends when aborted; may report progress. */
export type TaskWork = (
  signal: AbortSignal,
  onProgress: (progress: TaskProgress) => void,
) => Promise<CallToolResult>;

/** The call a task runs. */
export interface TaskCall {
  tool: string;
  /** The process it waits on, when the call names one (a start's comes with its first progress). */
  processId?: number;
  /** The call's `wait_ms`: one shorter than `PORTAL_TASK_AFTER_MS` is never made a task later. */
  waitMs?: number;
  /** The last line of a process, for the status message. */
  lastLine?: (id: number) => string;
  /** How the task asks the person for the secret its program waits for; none: it cannot. */
  questions?: (listener: QuestionsListener, taskId: string) => Questions;
  /** Whose it is (a 2025-11-25 connection): `tasks/list` lists a client's own. */
  owner?: object;
}

/** What {@link Tasks.start} gives: the call's reply, or the task it became. */
export type Started = { result: CallToolResult } | { task: TaskView };

/** Why a task's wait ended early other than by cancellation: its reply says so. */
class Declined extends Error {}

/** How a table is made: its store (none: memory only), and when a 2026-07-28 wait becomes a task. */
export interface TasksOptions {
  store?: TaskStore;
  /** `PORTAL_TASK_AFTER_MS`; default {@link TASKS}.afterMs. */
  afterMs?: number;
}

/** The tasks of one server process. */
export class Tasks {
  readonly #tasks = new Map<string, Task>();
  readonly #store?: TaskStore;
  readonly #afterMs: number;
  readonly #watchers = new Set<(task: TaskView) => void>();

  constructor(options: TasksOptions = {}) {
    this.#store = options.store;
    this.#afterMs = options.afterMs ?? TASKS.afterMs;
    this.#store?.forget(Date.now() - TASKS.keptMs, TASKS.max);
  }

  /**
   * Runs `work` for `call`. `"now"` (2025-11-25, a client that asked for a
   * task): a task at once. `"later"` (2026-07-28): its reply if it ends within
   * `PORTAL_TASK_AFTER_MS`, else the task it became; a call whose `waitMs` is
   * shorter than that is never a task (its client asked for a reply that
   * soon), nor one made when the table is full of unended tasks.
   */
  async start(work: TaskWork, call: TaskCall, when: "now" | "later" = "later"): Promise<Started> {
    const controller = new AbortController();
    const task: Task = {
      id: crypto.randomUUID(),
      status: "working",
      created: new Date(),
      updated: new Date(),
      what: call.tool,
      lastLine: call.lastLine,
      controller,
      done: Promise.withResolvers(),
      owner: call.owner,
    };
    const named = (id: number) => {
      task.processId = id;
      task.what = `${call.tool} (process ${id})`;
    };
    if (call.processId !== undefined) named(call.processId);
    task.questions = call.questions?.({
      asking: (open) => this.#move(task, open ? "input_required" : "working"),
      declined: (why) => controller.abort(new Declined(why)),
    }, task.id);
    if (when === "now") {
      if (!this.#makeRoom()) throw full();
      this.#add(task);
    }
    const running = work(controller.signal, (progress) => {
      task.progress = progress;
      if (task.processId === undefined) named(progress.id);
      if (this.#tasks.has(task.id) && !controller.signal.aborted) task.questions?.see(progress);
    }).then(
      (result) => {
        // A start that ended before its first progress names its process in its reply.
        const id = (result.structuredContent as { id?: unknown } | undefined)?.id;
        if (task.processId === undefined && typeof id === "number") named(id);
        const reason = controller.signal.reason;
        if (reason instanceof Declined) return this.#end(task, "completed", toolError(reason));
        this.#end(task, controller.signal.aborted ? "cancelled" : "completed", result);
      },
      (error: Error) =>
        this.#end(task, controller.signal.aborted ? "cancelled" : "failed", undefined, {
          code: Number.isSafeInteger((error as { code?: unknown }).code)
            ? (error as unknown as { code: number }).code
            : ProtocolErrorCode.InternalError,
          message: error?.message ?? String(error),
        }),
    );
    if (when === "now") return { task: this.#view(task) };
    const soon = call.waitMs !== undefined && call.waitMs < this.#afterMs;
    const late = !soon && !await settlesWithin(running, this.#afterMs);
    if (late && this.#makeRoom()) {
      this.#add(task);
      return { task: this.#view(task) };
    }
    await running;
    if (task.result) return { result: task.result };
    throw Object.assign(new Error(task.error!.message), { code: task.error!.code });
  }

  /** Task `taskId`'s state, with its reply once completed; an unknown one is an error. */
  get(taskId: string): TaskView {
    return this.#view(this.#known(taskId));
  }

  /** The tasks of `owner` (2025-11-25's `tasks/list`), newest first. */
  list(owner: object): TaskView[] {
    return [...this.#tasks.values()].filter((task) => task.owner === owner).reverse()
      .map((task) => this.#view(task));
  }

  /**
   * Ends task `taskId`'s wait (the program runs on): `cancelled` at once.
   * False when it had already ended (2025-11-25 refuses that; 2026-07-28 acks).
   */
  cancel(taskId: string): boolean {
    const task = this.#known(taskId);
    if (hasEnded(task.status)) return false;
    task.questions?.withdraw();
    task.controller.abort(new Error("The task was cancelled (tasks/cancel)."));
    this.#end(task, "cancelled");
    return true;
  }

  /**
   * `tasks/update` (2026-07-28): the answer to the task's open question, if
   * `inputResponses` has one (others are ignored, as the extension says).
   */
  update(taskId: string, inputResponses: unknown): void {
    const task = this.#known(taskId);
    task.questions?.answer?.(inputResponses, task.controller.signal);
  }

  /** Task `taskId` once it has ended (2025-11-25's `tasks/result` blocks so); `signal` gives up. */
  async ended(taskId: string, signal?: AbortSignal): Promise<TaskView> {
    const task = this.#known(taskId);
    if (!hasEnded(task.status)) await abortable(task.done.promise, signal);
    return this.#view(task);
  }

  /** Calls `watcher` with a task at each change of its status (from its creation); returns the unwatch. */
  watch(watcher: (task: TaskView) => void): () => void {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  /** How many watch (for a bound on them). */
  get watchers(): number {
    return this.#watchers.size;
  }

  /** Whether task `taskId` is `owner`'s (a 2025-11-25 client's, while the server runs). */
  isOwn(taskId: string, owner: object): boolean {
    return this.#tasks.get(taskId)?.owner === owner;
  }

  /** Whether `taskId` is a task of this server (now, or from its store). */
  has(taskId: string): boolean {
    return this.#tasks.has(taskId) || this.#store?.load(taskId) !== undefined;
  }

  /** Ends every wait (the server stops) and forgets the timers. */
  close(): void {
    for (const task of this.#tasks.values()) {
      clearTimeout(task.expiry);
      task.questions?.withdraw();
      task.controller.abort(new Error("The server stops."));
    }
    this.#tasks.clear();
    this.#watchers.clear();
  }

  #add(task: Task): void {
    this.#tasks.set(task.id, task);
    // Before its id is handed out: a client may poll it from anywhere at once.
    this.#save(task);
    this.#tell(task);
  }

  /** Task `taskId`: this run's, or one of the store (an earlier run's); else the error that says so. */
  #known(taskId: string): Task {
    const task = this.#tasks.get(taskId);
    if (task !== undefined) return task;
    const row = this.#store?.load(taskId);
    if (row === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `No task ${JSON.stringify(taskId.slice(0, 80))} on this server: it never was, or it ` +
          `ended more than ${TASKS.keptMs / 60_000} minutes ago.`,
      );
    }
    return fromRow(row);
  }

  #view(task: Task): TaskView {
    const view: TaskView = {
      taskId: task.id,
      status: task.status,
      statusMessage: statusMessage(task),
      createdAt: task.created.toISOString(),
      lastUpdatedAt: task.updated.toISOString(),
    };
    if (task.result && task.status !== "failed") view.result = task.result;
    if (task.status === "failed") view.error = task.error;
    const inputRequests = task.questions?.inputRequests;
    if (task.status === "input_required" && inputRequests) view.inputRequests = inputRequests;
    return view;
  }

  /** Moves an unended task between `working` and `input_required`. */
  #move(task: Task, status: "working" | "input_required"): void {
    if (hasEnded(task.status) || task.status === status) return;
    Object.assign(task, { status, updated: new Date() });
    this.#save(task);
    this.#tell(task);
  }

  /** Ends `task` with `status` (once: an ended task stays as it ended), kept {@link TASKS}.keptMs. */
  #end(
    task: Task,
    status: TaskStatus,
    result?: CallToolResult,
    error?: { code: number; message: string },
  ): void {
    if (hasEnded(task.status)) {
      // A cancelled wait's reply still comes: kept for tasks/result.
      if (task.status === "cancelled" && result) task.result ??= result;
      return;
    }
    task.questions?.withdraw();
    Object.assign(task, { result, error, status, updated: new Date() });
    task.done.resolve();
    if (!this.#tasks.has(task.id)) return; // Never made a task: its call answers.
    this.#save(task);
    this.#tell(task);
    task.expiry = setTimeout(() => this.#tasks.delete(task.id), TASKS.keptMs);
    Deno.unrefTimer(task.expiry);
  }

  #tell(task: Task): void {
    if (this.#watchers.size === 0) return;
    const view = this.#view(task);
    for (const watcher of this.#watchers) {
      try {
        watcher(view);
      } catch {
        // A watcher's failure (a client gone) is its own; the others are still told.
      }
    }
  }

  /** Writes the task to the store (its outcome once ended). */
  #save(task: Task): void {
    const row = toRow(task);
    try {
      this.#store?.save(row);
      // The store's rows go as the memory's do: it never holds more than they would.
      if (row.outcome) this.#store?.forget(Date.now() - TASKS.keptMs, TASKS.max);
    } catch {
      // The store cannot be written (a full disk): the task lives on in this server's memory.
    }
  }

  /** Whether one more task fits: forgets the oldest ended one when full. */
  #makeRoom(): boolean {
    if (this.#tasks.size < TASKS.max) return true;
    for (const task of this.#tasks.values()) {
      if (hasEnded(task.status)) {
        clearTimeout(task.expiry);
        this.#tasks.delete(task.id);
        return true;
      }
    }
    return false;
  }
}

/** The reply of a wait ended by a declined question. */
function toolError(reason: Declined): CallToolResult {
  return {
    content: [{
      type: "text",
      text: `${reason.message} The wait ended; the program still waits at its password prompt ` +
        "(process_write with secret_env or secret_prompt, or process_signal).",
    }],
    isError: true,
  };
}

/** A task asked for when {@link TASKS}.max are waiting. */
function full(): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InternalError,
    `Portal has ${TASKS.max} tasks waiting: call without a task, or cancel one (tasks/cancel).`,
  );
}
