/**
 * The tasks of MCP 2026-07-28 (the extension `io.modelcontextprotocol/tasks`)
 * on one server: a client declares the extension in each request's
 * `clientCapabilities`; a long call answers `resultType: "task"`; `tasks/get`,
 * `tasks/update` and `tasks/cancel` act on the server's {@link Tasks}, for a
 * request that declares it (else `-32021`, as the extension says).
 *
 * @module
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { envelope } from "../envelope.ts";
import type { Tasks } from "./tasks.ts";
import { modernTask } from "./wire.ts";

/** The extension's name, in capabilities. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** Whether a request whose `_meta` is `meta` declares the tasks extension. */
export function declaresTasks(meta: Record<string, unknown> | undefined): boolean {
  const capabilities = meta?.[CLIENT_CAPABILITIES_META_KEY] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
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

/** Throws `-32021` unless the request `ctx` declares the extension (`method` needs it). */
function needsExtension(ctx: ServerContext, method: string): void {
  if (declaresTasks(envelope(ctx))) return;
  const { code, message, data } = missingExtension(method);
  throw new ProtocolError(code, message, data);
}

/**
 * Serves `tasks/get`, `tasks/update` and `tasks/cancel` of `tasks` on
 * `server`, to a request that declares the extension (else `-32021`).
 */
export function serveModernTasks(server: Server, tasks: Tasks): void {
  const taskId = z.object({ taskId: z.string() });
  server.setRequestHandler("tasks/get", { params: taskId }, ({ taskId }, ctx) => {
    needsExtension(ctx, "tasks/get");
    return modernTask(tasks.get(taskId));
  });
  server.setRequestHandler("tasks/cancel", { params: taskId }, ({ taskId }, ctx) => {
    needsExtension(ctx, "tasks/cancel");
    // An ended task's cancel is acknowledged too: the extension's cancellation is a wish.
    tasks.cancel(taskId);
    return {};
  });
  // The SDK takes `inputResponses` out of the params for every request: they are in `ctx`.
  server.setRequestHandler("tasks/update", { params: taskId }, ({ taskId }, ctx) => {
    needsExtension(ctx, "tasks/update");
    tasks.update(taskId, ctx.mcpReq.inputResponses ?? {});
    return {};
  });
}
