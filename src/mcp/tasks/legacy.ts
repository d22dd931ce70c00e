/**
 * The tasks of MCP 2025-11-25 (SEP-1732), as VS Code and the SDK v1 client
 * ask for them, on the server's one {@link Tasks} table:
 *
 * - `capabilities.tasks` with `requests.tools.call`, `list` and `cancel`;
 *   `execution.taskSupport: "optional"` on the tools that wait
 *   ({@link TASK_TOOLS}) in `tools/list`;
 * - a `tools/call` with `params.task` answers a `CreateTaskResult` at once
 *   (server.ts); another tool asked as a task is `-32601`, as the revision says;
 * - `tasks/get`, `tasks/result` (blocks until the task has ended, then gives
 *   exactly what the call would have: its reply, or its JSON-RPC error),
 *   `tasks/list` (this client's tasks), `tasks/cancel` (ends the wait, not
 *   the program; an ended task is `-32602`);
 * - `notifications/tasks/status` to this client at each status change of
 *   its tasks.
 *
 * The SDK v2 keeps this revision's wire schemas but no runtime for it: its
 * codec checks these requests, Portal's table answers them (the same table
 * as 2026-07-28's extension, so one store serves both).
 *
 * @module
 */
import {
  type CallToolResult,
  type ListToolsResult,
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type Server,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import type { Tasks } from "./tasks.ts";
import { TASK_TOOLS } from "./task_input.ts";
import { legacyTask } from "./wire.ts";

/** What a 2025-11-25 server declares it does with tasks. */
export const LEGACY_TASKS_CAPABILITY = {
  list: {},
  cancel: {},
  requests: { tools: { call: {} } },
};

/** `listing` with `execution.taskSupport: "optional"` on the tools that may be tasks. */
export function withTaskSupport(listing: ListToolsResult): ListToolsResult {
  return {
    ...listing,
    tools: listing.tools.map((tool) =>
      TASK_TOOLS.has(tool.name) ? { ...tool, execution: { taskSupport: "optional" } } : tool
    ),
  };
}

/** Refuses a task asked of a tool that is never one (its `taskSupport` is absent). */
export function refuseTask(tool: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.MethodNotFound,
    `${tool} does not run as a task (its execution.taskSupport is absent): call it without ` +
      `"task". The tools that may: ${[...TASK_TOOLS].join(", ")}.`,
  );
}

/**
 * Serves `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` of
 * `tasks` on `server` (one client's), and tells that client each status
 * change of the tasks it started (`owner` is whose they are). Returns the
 * end of the telling, for when the client leaves.
 */
export function serveLegacyTasks(server: Server, tasks: Tasks, owner: object): () => void {
  const byId = { params: z.object({ taskId: z.string() }) };
  server.setRequestHandler("tasks/get", byId, ({ taskId }) => legacyTask(tasks.get(taskId)));
  server.setRequestHandler("tasks/result", byId, async ({ taskId }, ctx) => {
    const ended = await tasks.ended(taskId, ctx.mcpReq.signal);
    const related = { [RELATED_TASK_META_KEY]: { taskId } };
    if (ended.status === "failed" || ended.result === undefined) {
      const error = ended.error ?? {
        code: ProtocolErrorCode.InternalError,
        message: "The task was cancelled (tasks/cancel) before its call answered.",
      };
      throw new ProtocolError(error.code, error.message, related);
    }
    const result: CallToolResult = ended.result;
    return { ...result, _meta: { ...result._meta, ...related } };
  });
  // One page: a client's tasks are at most TASKS.max.
  const page = { params: z.object({ cursor: z.string().optional() }).optional() };
  server.setRequestHandler("tasks/list", page, () => ({
    tasks: tasks.list(owner).map(legacyTask),
  }));
  server.setRequestHandler("tasks/cancel", byId, ({ taskId }) => {
    if (!tasks.cancel(taskId)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Task ${taskId} has already ended (${tasks.get(taskId).status}): tasks/result gives ` +
          "its outcome.",
      );
    }
    return legacyTask(tasks.get(taskId));
  });
  return tasks.watch((view) => {
    if (!tasks.isOwn(view.taskId, owner)) return;
    server.notification({ method: "notifications/tasks/status", params: legacyTask(view) })
      .catch(() => {/* The client is gone: it polls, if it comes back. */});
  });
}
