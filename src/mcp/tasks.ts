/**
 * Long waits as MCP tasks (the extension `io.modelcontextprotocol/tasks` of
 * 2026-07-28): when a request's client declares it, a waiting call
 * (`process_write`, `process_read_new`, `process_start` with a wait) still
 * going after {@link TASKS}.afterMs answers `resultType: "task"` with a
 * task id instead of its reply, and the wait goes on, up to
 * {@link TASKS}.waitMaxMs (the synchronous cap stays `wait_ms` ≤ 300 s).
 * `tasks/get` tells how it is going (a `statusMessage` a person can read:
 * the time waited, the program's state and last line) and, once
 * `completed`, gives exactly the reply the call would have given.
 * `tasks/cancel` ends the wait, not the program.
 *
 * The tasks live in the server process (the host, or a `--no-host` or
 * HTTP server), not in a session: a task outlives the client that started
 * it, and any client of that server that has its id (random, unguessable)
 * may poll it. A task is kept {@link TASKS}.keptMs after it ends, and at
 * most {@link TASKS}.max are (the oldest ended one goes first; when none
 * has ended, the call is not made a task and waits as it would have).
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
import { TASKS, WAIT_MS } from "../limits.ts";
import { envelope } from "./envelope.ts";
import { shownLine } from "./tools/tool.ts";

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
  elapsedMs: number;
  state: string;
}

/** The work of a call made a task: ends when aborted; may report progress. */
export type TaskWork = (
  signal: AbortSignal,
  onProgress: (progress: TaskProgress) => void,
) => Promise<CallToolResult>;

interface Task {
  id: string;
  status: Status;
  created: Date;
  updated: Date;
  /** What it waits for: the tool, and its process if known. */
  what: string;
  progress?: TaskProgress;
  /** The last line of the process it waits on, when there is one. */
  lastLine?: () => string;
  result?: CallToolResult;
  error?: { code: number; message: string };
  controller: AbortController;
  /** Forgets it, once it has ended and been kept long enough. */
  expiry?: ReturnType<typeof setTimeout>;
}

/** The tasks of this server process. */
const tasks = new Map<string, Task>();

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
 * Runs `work`; its result if it ends within {@link TASKS}.afterMs, else
 * the task it became (already in the table: `tasks/get` finds it).
 */
export async function runAsTask(
  work: TaskWork,
  what: string,
  lastLine?: () => string,
): Promise<CallToolResult | Record<string, unknown>> {
  const controller = new AbortController();
  const task: Task = {
    id: crypto.randomUUID(),
    status: "working",
    created: new Date(),
    updated: new Date(),
    what,
    lastLine,
    controller,
  };
  const running = work(controller.signal, (progress) => {
    task.progress = progress;
  }).then(
    (result) => end(task, controller.signal.aborted ? "cancelled" : "completed", { result }),
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
  const first = await Promise.race([
    running.then(() => task),
    new Promise<typeof later>((resolve) => timer = setTimeout(() => resolve(later), TASKS.afterMs)),
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
  return { resultType: "task", ...view(task) };
}

/** `tasks/get`: the task's state, with its reply once completed. */
export function getTask(taskId: string): Record<string, unknown> {
  const task = known(taskId);
  const detail: Record<string, unknown> = view(task);
  if (task.status === "completed") detail.result = task.result;
  if (task.status === "failed") detail.error = task.error;
  return detail;
}

/** `tasks/cancel`: ends the task's wait (the program runs on). */
export function cancelTask(taskId: string): Record<string, never> {
  known(taskId).controller.abort(new Error("The task was cancelled (tasks/cancel)."));
  return {};
}

function known(taskId: string): Task {
  const task = tasks.get(taskId);
  if (task === undefined) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `No task ${JSON.stringify(taskId.slice(0, 80))} on this server: it never was, or it ` +
        `ended more than ${TASKS.keptMs / 60_000} minutes ago, or the server restarted.`,
    );
  }
  return task;
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
  return `${task.what}: waiting for ${seconds(waited)}${state}${shownLine(task.lastLine)}.`;
}

/** Ends `task` with `status`: kept for {@link TASKS}.keptMs, then forgotten. */
function end(task: Task, status: Status, outcome: Pick<Task, "result" | "error">): void {
  Object.assign(task, outcome, { status, updated: new Date() });
  task.expiry = setTimeout(() => tasks.delete(task.id), TASKS.keptMs);
  Deno.unrefTimer(task.expiry);
}

/** Whether one more task fits: forgets the oldest ended one when full. */
function makeRoom(): boolean {
  if (tasks.size < TASKS.max) return true;
  for (const task of tasks.values()) {
    if (task.status !== "working") {
      clearTimeout(task.expiry);
      tasks.delete(task.id);
      return true;
    }
  }
  return false;
}
