/**
 * Long waits as MCP tasks (the extension `io.modelcontextprotocol/tasks` of
 * 2026-07-28): when a request's client declares it, a waiting call
 * (`process_write`, `process_read_new`, `process_start` with a wait) still
 * going after `PORTAL_TASK_AFTER_MS` (default {@link TASKS}.afterMs)
 * answers `resultType: "task"` with a task id instead of its reply, and
 * the wait goes on, up to {@link TASKS}.waitMaxMs (the synchronous cap
 * stays `wait_ms` ≤ 300 s).
 * `tasks/get` tells how it is going (a `statusMessage` a person can read:
 * the time waited, the program's state and last line) and, once
 * `completed`, gives exactly the reply the call would have given.
 * `tasks/cancel` ends the wait, not the program.
 *
 * When the program stops at a password prompt during the task and the
 * client declared elicitation, the task goes to `input_required` with the
 * question of `secret_prompt` in `inputRequests` (questions.ts);
 * `tasks/update` with the answer types it and the wait goes on. A decline
 * ends the wait: the task completes with a tool error, nothing typed.
 *
 * The tasks live in the server process (the host, or a `--no-host` or
 * HTTP server), not in a session: a task outlives the client that started
 * it, and any client of that server that has its id (random, unguessable)
 * may poll it. Each is also written to the server's {@link TaskFile}
 * before its id is handed out, and again when it ends: after a restart
 * `tasks/get` still gives its reply, or says the wait was cut short.
 * A task is kept {@link TASKS}.keptMs after it ends, and at most
 * {@link TASKS}.max are (the oldest ended one goes first; when none has
 * ended, the call is not made a task and waits as it would have).
 *
 * @module
 */
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { TaskFile, TaskRow } from "../../core/steps/task_file.ts";
import { readVar, TASK_AFTER_MS } from "../../env_vars.ts";
import { TASKS, WAIT_MS } from "../../limits.ts";
import { envelope } from "../envelope.ts";
import { shownLine } from "../tools/tool.ts";
import { type SecretAsker, TaskQuestions } from "./questions.ts";

export type { SecretAsker };

/** The extension's name, in capabilities. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The tools whose call may become a task: those that wait. */
export const TASK_TOOLS: ReadonlySet<string> = new Set([
  "process_write",
  "process_read_new",
  "process_start",
]);

type Status = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** What a task's work reports while it waits. */
export interface TaskProgress {
  /** The process waited on. */
  id: number;
  elapsedMs: number;
  state: string;
}

/** The work of a call made a task: ends when aborted; may report progress. */
export type TaskWork = (
  signal: AbortSignal,
  onProgress: (progress: TaskProgress) => void,
) => Promise<CallToolResult>;

/** Why a task's wait ended early other than by `tasks/cancel`: its reply says so. */
class Declined extends Error {}

interface Task {
  id: string;
  status: Status;
  created: Date;
  updated: Date;
  /** What it waits for: the tool, and its process once known. */
  what: string;
  /** The process it waits on, once known (a start's comes with its first progress). */
  processId?: number;
  progress?: TaskProgress;
  /** The last line of a process. */
  lastLine?: (id: number) => string;
  result?: CallToolResult;
  error?: { code: number; message: string };
  controller: AbortController;
  /** Forgets it, once it has ended and been kept long enough. */
  expiry?: ReturnType<typeof setTimeout>;
  /** Its questions to the person, when its client can be asked. */
  questions?: TaskQuestions;
}

/** The tasks of this server process. */
const tasks = new Map<string, Task>();
/** Where they are also kept (the server's, once it has opened its records). */
let file: TaskFile | undefined;
/** How long a call waits before it becomes a task: the server's `PORTAL_TASK_AFTER_MS`. */
let afterMs: number = TASKS.afterMs;

/**
 * Keeps this server's tasks in `taskFile` too (see the module doc), and
 * takes `PORTAL_TASK_AFTER_MS` from `env` (throws on a bad value, so the
 * server does not start); undefined: no more.
 */
export function keepTasksIn(taskFile: TaskFile | undefined, env?: Record<string, string>): void {
  if (taskFile) afterMs = readVar(TASK_AFTER_MS, env);
  file = taskFile;
  file?.forget(Date.now() - TASKS.keptMs, TASKS.max);
}

/** Whether the request `ctx` declares the tasks extension. */
export function declaresTasks(ctx: ServerContext): boolean {
  const capabilities = envelope(ctx)[CLIENT_CAPABILITIES_META_KEY] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/**
 * `args` as the tool's schema checks them, with a `wait_ms` beyond the
 * synchronous cap (up to the task cap) brought within it; `restore` puts
 * the asked one back on the parsed arguments.
 */
export function taskArguments(args: unknown): {
  checked: unknown;
  restore: (parsed: unknown) => unknown;
} {
  const waitMs = (args as { wait_ms?: unknown } | null)?.wait_ms;
  if (typeof waitMs !== "number" || waitMs <= WAIT_MS.max || waitMs > TASKS.waitMaxMs) {
    return { checked: args, restore: (parsed) => parsed };
  }
  return {
    checked: { ...args as object, wait_ms: WAIT_MS.max },
    restore: (parsed) => ({ ...parsed as object, wait_ms: waitMs }),
  };
}

/**
 * Runs `work`; its result if it ends within `PORTAL_TASK_AFTER_MS`, else
 * the task it became (already in the table: `tasks/get` finds it). A call
 * whose `waitMs` is shorter than that is never a task: its client asked
 * for a reply that soon.
 */
export async function runAsTask(
  work: TaskWork,
  call: { tool: string; processId?: number; waitMs?: number },
  lastLine?: (id: number) => string,
  asker?: SecretAsker,
): Promise<CallToolResult | Record<string, unknown>> {
  const controller = new AbortController();
  const task: Task = {
    id: crypto.randomUUID(),
    status: "working",
    created: new Date(),
    updated: new Date(),
    what: call.tool,
    lastLine,
    controller,
  };
  const named = (id: number) => {
    task.processId = id;
    task.what = `${call.tool} (process ${id})`;
  };
  if (call.processId !== undefined) named(call.processId);
  task.questions = asker && new TaskQuestions(asker, {
    asking: (open) => setStatus(task, open ? "input_required" : "working"),
    declined: (why) => controller.abort(new Declined(why)),
  });
  const running = work(controller.signal, (progress) => {
    task.progress = progress;
    if (task.processId === undefined) named(progress.id);
    if (tasks.has(task.id) && !controller.signal.aborted) task.questions?.see(progress);
  }).then(
    (result) => {
      const reason = controller.signal.reason;
      if (reason instanceof Declined) return end(task, "completed", { result: toolError(reason) });
      end(task, controller.signal.aborted ? "cancelled" : "completed", { result });
    },
    (error: Error) =>
      end(task, controller.signal.aborted ? "cancelled" : "failed", {
        error: {
          code: Number.isSafeInteger((error as { code?: unknown }).code)
            ? (error as unknown as { code: number }).code
            : ProtocolErrorCode.InternalError,
          message: error?.message ?? String(error),
        },
      }),
  );
  const later = Symbol("later");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const soon = call.waitMs !== undefined && call.waitMs < afterMs;
  const first = await Promise.race([
    running.then(() => task),
    new Promise<typeof later>((resolve) => {
      if (!soon) timer = setTimeout(() => resolve(later), afterMs);
    }),
  ]);
  clearTimeout(timer);
  if (first !== later) {
    if (task.result) return task.result;
    throw Object.assign(new Error(task.error!.message), { code: task.error!.code });
  }
  if (!makeRoom()) {
    await running;
    if (task.result) return task.result;
    throw Object.assign(new Error(task.error!.message), { code: task.error!.code });
  }
  tasks.set(task.id, task);
  save(task); // Before its id is handed out: a client may poll it from anywhere at once.
  return { resultType: "task", ...view(task) };
}

/** `tasks/get`: the task's state, with its reply once completed. */
export function getTask(taskId: string): Record<string, unknown> {
  const task = known(taskId);
  const detail: Record<string, unknown> = view(task);
  if (task.status === "completed") detail.result = task.result;
  if (task.status === "failed") detail.error = task.error;
  const inputRequests = task.questions?.inputRequests;
  if (inputRequests) detail.inputRequests = inputRequests;
  return detail;
}

/** `tasks/cancel`: ends the task's wait (the program runs on). */
export function cancelTask(taskId: string): Record<string, never> {
  const task = known(taskId);
  task.questions?.withdraw();
  task.controller.abort(new Error("The task was cancelled (tasks/cancel)."));
  return {};
}

/**
 * `tasks/update`: the answer to the task's open question, if `inputResponses`
 * has one (others are ignored, as the extension says). Typed after the ack:
 * `tasks/get` tells how it went.
 */
export function updateTask(taskId: string, inputResponses: unknown): Record<string, never> {
  const task = known(taskId);
  task.questions?.answer(inputResponses, task.controller.signal);
  return {};
}

/** Task `taskId`: this run's, or one of its file (an earlier run's); else the error that says so. */
function known(taskId: string): Task {
  const task = tasks.get(taskId);
  if (task !== undefined) return task;
  const row = file?.load(taskId);
  if (row === undefined) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `No task ${JSON.stringify(taskId.slice(0, 80))} on this server: it never was, or it ` +
        `ended more than ${TASKS.keptMs / 60_000} minutes ago.`,
    );
  }
  const stored: Task = {
    id: row.id,
    status: row.status as Status,
    created: new Date(row.createdAt),
    updated: new Date(row.updatedAt),
    what: row.what,
    controller: new AbortController(),
  };
  const outcome = row.outcome === undefined ? {} : JSON.parse(row.outcome);
  if (stored.status === "working" || stored.status === "input_required") {
    // Not in this server's memory, so its wait ended with the server that ran it.
    stored.status = "failed";
    stored.error = {
      code: ProtocolErrorCode.InternalError,
      message: "The server stopped during this wait (it was restarted). The program may run on " +
        "if it was kept: process_list, then process_read_new.",
    };
  } else Object.assign(stored, outcome);
  return stored;
}

/** The task as the wire shows it (no result or error). */
function view(task: Task): Record<string, unknown> {
  return {
    taskId: task.id,
    status: task.status,
    statusMessage: message(task),
    createdAt: task.created.toISOString(),
    lastUpdatedAt: task.updated.toISOString(),
    ttlMs: task.status === "working" ? null : TASKS.keptMs,
    pollIntervalMs: TASKS.pollMs,
  };
}

/** What a person reads of the task: what it waits for, how long, how the program is. */
function message(task: Task): string {
  const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
  if (task.status === "cancelled") return `${task.what}: the wait was cancelled.`;
  if (task.status === "failed") return `${task.what} failed: ${task.error?.message}`;
  if (task.status === "completed") {
    const took = task.updated.getTime() - task.created.getTime();
    return `${task.what} done after ${seconds(took)}.`;
  }
  const waited = Date.now() - task.created.getTime();
  const state = task.progress ? `; the program is ${task.progress.state}` : "";
  const asked = task.status === "input_required"
    ? "; the person is asked for the secret (inputRequests; answer with tasks/update)"
    : "";
  const note = task.questions?.note ? `; ${task.questions.note}` : "";
  const line = task.processId === undefined ? "" : shownLine(() => task.lastLine!(task.processId!));
  return `${task.what}: waiting for ${seconds(waited)}${state}${line}${asked}${note}.`;
}

function setStatus(task: Task, status: Status): void {
  Object.assign(task, { status, updated: new Date() });
  save(task);
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

/** Writes the task to the server's file (its outcome once ended). */
function save(task: Task): void {
  const row: TaskRow = {
    id: task.id,
    status: task.status,
    createdAt: task.created.getTime(),
    updatedAt: task.updated.getTime(),
    what: task.what,
  };
  if (task.result || task.error) {
    row.outcome = JSON.stringify({ result: task.result, error: task.error });
  }
  try {
    file?.save(row);
    // The file's rows go as the memory's do: it never holds more than they would.
    if (row.outcome) file?.forget(Date.now() - TASKS.keptMs, TASKS.max);
  } catch {
    // The file cannot be written (a full disk): the task lives on in this server's memory.
  }
}

/** Ends `task` with `status`: kept for {@link TASKS}.keptMs, then forgotten. */
function end(task: Task, status: Status, outcome: Pick<Task, "result" | "error">): void {
  task.questions?.withdraw();
  Object.assign(task, outcome, { status, updated: new Date() });
  if (tasks.has(task.id)) save(task);
  task.expiry = setTimeout(() => tasks.delete(task.id), TASKS.keptMs);
  Deno.unrefTimer(task.expiry);
}

/** Whether one more task fits: forgets the oldest ended one when full. */
function makeRoom(): boolean {
  if (tasks.size < TASKS.max) return true;
  for (const task of tasks.values()) {
    if (task.status !== "working" && task.status !== "input_required") {
      clearTimeout(task.expiry);
      tasks.delete(task.id);
      return true;
    }
  }
  return false;
}
