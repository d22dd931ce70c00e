/**
 * One task of a server's table (tasks.ts), what every revision's answer
 * about it is made of ({@link TaskView}), and the one line a person reads of
 * it (`statusMessage`): what it waits for, what happened (the program's
 * state, its exit code, or the question asked) and the program's last line.
 *
 * @module
 */
import { type CallToolResult, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { hasEnded, type TaskRow, type TaskStatus } from "../../core/steps/task_file.ts";
import { shownLine } from "../tools/tool.ts";
import type { Questions } from "./questions.ts";

/** What a task's work reports while it waits. */
export interface TaskProgress {
  /** The process waited on. */
  id: number;
  elapsedMs: number;
  state: string;
}

/** A task as every revision's answer is made of (wire.ts gives each its shape). */
export interface TaskView {
  taskId: string;
  status: TaskStatus;
  statusMessage: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** Once `completed` (or `cancelled` after the call answered): the call's reply. */
  result?: CallToolResult;
  /** Once `failed`: the JSON-RPC error of the call. */
  error?: { code: number; message: string };
  /** While `input_required`: the open question, 2026-07-28's way. */
  inputRequests?: Record<string, unknown>;
}

/** One task, as the table holds it. */
export interface Task {
  id: string;
  status: TaskStatus;
  created: Date;
  updated: Date;
  /** What it waits for: the tool, and its process once known. */
  what: string;
  processId?: number;
  progress?: TaskProgress;
  lastLine?: (id: number) => string;
  result?: CallToolResult;
  error?: { code: number; message: string };
  controller: AbortController;
  /** Settles once it has ended. */
  done: PromiseWithResolvers<void>;
  owner?: object;
  /** Forgets it, once it has ended and been kept long enough. */
  expiry?: ReturnType<typeof setTimeout>;
  questions?: Questions;
}

/** The task as stored: its outcome once ended. */
export function toRow(task: Task): TaskRow {
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
  return row;
}

/** A task of an earlier run, from its row: one that had not ended then was cut short. */
export function fromRow(row: TaskRow): Task {
  const task: Task = {
    id: row.id,
    status: row.status,
    created: new Date(row.createdAt),
    updated: new Date(row.updatedAt),
    what: row.what,
    controller: new AbortController(),
    done: Promise.withResolvers(),
  };
  task.done.resolve();
  if (!hasEnded(task.status)) {
    // Not in this server's memory, so its wait ended with the server that ran it.
    task.status = "failed";
    task.error = {
      code: ProtocolErrorCode.InternalError,
      message: "The server stopped during this wait (it was restarted). The program may run " +
        "on if it was kept: process_list, then process_read_new.",
    };
  } else if (row.outcome !== undefined) Object.assign(task, JSON.parse(row.outcome));
  return task;
}

/** What a person reads of the task, in one line. */
export function statusMessage(task: Task): string {
  const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
  const line = task.processId === undefined || !task.lastLine
    ? ""
    : shownLine(() => task.lastLine!(task.processId!));
  if (task.status === "cancelled") return `${task.what}: the wait was cancelled${line}.`;
  if (task.status === "failed") return `${task.what} failed: ${task.error?.message}`;
  if (task.status === "completed") {
    const took = task.updated.getTime() - task.created.getTime();
    return `${task.what} done after ${seconds(took)}${outcome(task)}${line}.`;
  }
  const waited = Date.now() - task.created.getTime();
  const state = task.progress ? `; the program is ${task.progress.state}` : "";
  const asked = task.status === "input_required"
    ? `; the person is asked: ${task.questions?.asked ?? "the secret"}`
    : "";
  const note = task.questions?.note ? `; ${task.questions.note}` : "";
  return `${task.what}: waiting for ${seconds(waited)}${state}${asked}${line}${note}.`;
}

/** `; the program exited (exit code 2)`, or the tool error's first line: what the reply says. */
function outcome(task: Task): string {
  const result = task.result;
  if (result === undefined) return "";
  if (result.isError) {
    const text = (result.content?.[0] as { text?: string } | undefined)?.text ?? "";
    return `; error: ${text.split("\n")[0].slice(0, 200)}`;
  }
  const reply = result.structuredContent as
    | { state?: string; exit_code?: number | null; exit_signal?: string | null }
    | undefined;
  if (reply?.state === undefined) return "";
  const code = reply.exit_code ?? undefined;
  const signal = reply.exit_signal ?? undefined;
  const how = code !== undefined ? ` (exit code ${code})` : signal ? ` (${signal})` : "";
  return `; the program is ${reply.state}${how}`;
}
