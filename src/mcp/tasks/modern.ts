/**
 * The tasks of MCP 2026-07-28 (the extension `io.modelcontextprotocol/tasks`)
 * on one server: a client declares the extension in each request's
 * `clientCapabilities`; a long call answers `resultType: "task"`; `tasks/get`,
 * `tasks/update` and `tasks/cancel` act on the server's {@link Tasks}.
 *
 * @module
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { envelope } from "../envelope.ts";
import type { Tasks, TaskView } from "./tasks.ts";
import { modernTask } from "./wire.ts";

/** The extension's name, in capabilities. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** Whether the request `ctx` declares the tasks extension. */
export function declaresTasks(ctx: ServerContext): boolean {
  const capabilities = envelope(ctx)[CLIENT_CAPABILITIES_META_KEY] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/** The answer of a call made task `view`: `CreateTaskResult`. */
export function modernTaskCreated(view: TaskView): Record<string, unknown> {
  return { resultType: "task", ...modernTask(view) };
}

/** The `-32021` error of a request that needs the tasks extension declared. */
export function missingExtension(what: string) {
  return {
    code: ProtocolErrorCode.MissingRequiredClientCapability,
    message: `Missing required client capability: ${what} needs the extension ` +
      `${TASKS_EXTENSION}, declared in _meta["${CLIENT_CAPABILITIES_META_KEY}"].extensions.`,
    data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  };
}

/**
 * Serves `tasks/get`, `tasks/update` and `tasks/cancel` of `tasks` on
 * `server`.
 */
export function serveModernTasks(server: Server, tasks: Tasks): void {
  const taskId = z.object({ taskId: z.string() });
  server.setRequestHandler("tasks/get", { params: taskId }, ({ taskId }) => {
    return modernTask(tasks.get(taskId));
  });
  server.setRequestHandler("tasks/cancel", { params: taskId }, ({ taskId }) => {
    // An ended task's cancel is acknowledged too: the extension's cancellation is a wish.
    tasks.cancel(taskId);
    return {};
  });
  // The SDK takes `inputResponses` out of the params for every request: they are in `ctx`.
  server.setRequestHandler("tasks/update", { params: taskId }, ({ taskId }, ctx) => {
    tasks.update(taskId, ctx.mcpReq.inputResponses ?? {});
    return {};
  });
}
