/**
 * The MCP face of Portal: a server of the MCP SDK (v2) answering
 * `tools/list` with every tool of {@link TOOLS} and `tools/call` with a thin
 * translation onto the {@link ProcessManager} and {@link ProgramRegistry} of
 * its context, with the `logging` capability: the server's {@link Log}
 * reaches its client as `notifications/message`. One server speaks the
 * revision its serving entry bound it to: 2025-11-25 (and older) after an
 * `initialize`, or 2026-07-28, per request, with the client's identity, its
 * capabilities and its log level in each request's `_meta`.
 *
 * @module
 */
import {
  isTaskAugmentedRequestParams,
  type JSONRPCRequest,
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  type ProtocolEra,
  type Result,
  Server,
  type ServerContext,
  type Transport,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { VERSION } from "../version.ts";
import { envelope, LEGACY_VERSIONS, MODERN_VERSIONS, speaksModern } from "./envelope.ts";
import { INSTRUCTIONS } from "./instructions.ts";
import { verifyRequestState } from "./secret_rounds.ts";
import type { Tasks } from "./tasks/tasks.ts";
import { serveModernTasks, TASKS_EXTENSION } from "./tasks/modern.ts";
import { LEGACY_TASKS_CAPABILITY, serveLegacyTasks, withTaskSupport } from "./tasks/legacy.ts";
import { runAsTask, taskMode } from "./tasks/task_call.ts";
import { TaskListenTransport } from "./tasks/listen.ts";
import { taskInput } from "./tasks/task_input.ts";
import type { Log, SessionLog } from "./logging.ts";
import { callTool, type ToolContext } from "./tools/tool.ts";
import { screenArguments, screenCallRequest } from "./tools/invalid_params.ts";
import { TOOLS } from "./tools/index.ts";
import { listing } from "./tools/listing.ts";
import {
  appListing,
  declaresUi,
  readViewResource,
  viewResources,
  withViewTouches,
} from "./app/ui_extension.ts";
import { VIEW_TOOLS } from "./app/view_tools.ts";

/** The revisions Portal speaks, newest first. */
const PROTOCOL_VERSIONS = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];

/**
 * How long a client may keep the tool list (2026-07-28's `ttlMs`): it
 * changes only with Portal's version, which a client sees in `serverInfo`.
 */
export const TOOLS_TTL_MS = 3_600_000;

const BY_NAME = new Map(TOOLS.map((tool) => [tool.name, tool]));
/** With the terminal view's tools, for a client that renders MCP Apps (app/ui_extension.ts). */
const WITH_VIEW = new Map([...TOOLS, ...VIEW_TOOLS].map((tool) => [tool.name, tool]));
const CAPABILITIES = { logging: {}, tools: {}, resources: {} };
let listed: ReturnType<typeof listing> | undefined;
/** Made at the first `tools/list`: a host that is never asked saves the schemas' conversion. */
const toolListing = () => listed ??= listing(TOOLS);

type Handler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/**
 * The SDK's server with a `tools/call` screened before the SDK reads it: a
 * malformed one or an unknown tool is refused in one line that names what is
 * wrong (the SDK's own refusal quotes zod's issues as JSON); and a
 * `server/discover` that lists every revision Portal speaks. `_wrapHandler`
 * is the SDK's hook for exactly this (a subclass's own checks on a handler).
 */
class PortalServer extends Server {
  protected override _wrapHandler(method: string, handler: Handler): Handler {
    const wrapped = super._wrapHandler(method, handler);
    // The SDK lists only the revisions of requests with `_meta`; a client that speaks both
    // learns here that `initialize` reaches the older ones.
    if (method === "server/discover") {
      return async (request, ctx) => ({
        ...await wrapped(request, ctx),
        supportedVersions: PROTOCOL_VERSIONS,
      });
    }
    if (method !== "tools/call") return wrapped;
    return (request, ctx) => {
      try {
        screenCallRequest(request, declaresUi(this, ctx) ? WITH_VIEW : BY_NAME);
      } catch (error) {
        this.#onRefused?.(ctx, (error as Error).message);
        throw error;
      }
      // A 2025-11-25 task answers a CreateTaskResult, which the SDK's check of a tools/call
      // result refuses (SDK v2 keeps that revision's task schemas, not its runtime).
      if (isTaskAugmentedRequestParams(request.params) && !speaksModern(this)) {
        return handler(request, ctx);
      }
      return wrapped(request, ctx);
    };
  }

  #onRefused?: (ctx: ServerContext, message: string) => void;

  /** Hears each `tools/call` refused as a whole (to log it as the caller's mistake). */
  onRefused(listener: (ctx: ServerContext, message: string) => void): void {
    this.#onRefused = listener;
  }
}

/**
 * Builds the server of one session (or of one request, in 2026-07-28 over
 * HTTP), with every tool on `context` and long waits as `tasks`; `log` is
 * its part of the server's log (close it when the session ends); a
 * 2025-11-25 client hears `clientLevel` and above until it sets a level
 * (default: the server's). `era` is the one the SDK's serving entry builds
 * it for (default: legacy, by `initialize`).
 */
export function createServer(
  context: ToolContext,
  serverLog: Log,
  tasks: Tasks,
  options: { clientLevel?: LoggingLevel; era?: ProtocolEra } = {},
): { server: Server; log: SessionLog } {
  const modern = options.era === "modern";
  const server = new PortalServer(
    { name: "portal", title: "Portal", version: VERSION },
    {
      instructions: INSTRUCTIONS,
      // 2026-07-28's tasks are an extension; 2025-11-25's a capability of their own.
      capabilities: modern
        ? { ...CAPABILITIES, extensions: { [TASKS_EXTENSION]: {} } }
        : { ...CAPABILITIES, tasks: LEGACY_TASKS_CAPABILITY },
      supportedProtocolVersions: PROTOCOL_VERSIONS,
      cacheHints: { "tools/list": { ttlMs: TOOLS_TTL_MS, cacheScope: "public" } },
      requestState: { verify: verifyRequestState },
    },
  );
  const log = serverLog.session(server, options.clientLevel, modern);
  server.onRefused((ctx, message) =>
    log.log("info", "tools", `tools/call refused: ${message}`, ctx.mcpReq.id)
  );
  server.setRequestHandler(
    "tools/list",
    (_, ctx) => {
      const listing = declaresUi(server, ctx) ? appListing(TOOLS) : toolListing();
      return modern ? listing : withTaskSupport(listing);
    },
  );
  server.setRequestHandler("resources/list", (_, ctx) => viewResources(declaresUi(server, ctx)));
  server.setRequestHandler("resources/read", ({ params }) => readViewResource(params.uri));
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const ui = declaresUi(server, ctx);
    const tool = (ui ? WITH_VIEW : BY_NAME).get(request.params.name)!;
    const done = log.ask(ctx.mcpReq.id, envelope(ctx)[LOG_LEVEL_META_KEY] as LoggingLevel);
    try {
      const when = taskMode(tool.name, request.params, ctx, modern);
      const screened = screenArguments(
        tool,
        request.params.arguments,
        when ? taskInput(tool) : undefined,
      );
      if ("refused" in screened) {
        log.log("info", "tools", `${tool.name} refused: ${screened.line}`, ctx.mcpReq.id);
        return screened.refused;
      }
      const args = screened.args as { id?: number; wait_ms?: number };
      const call = { context, server, ctx, log };
      if (!when) {
        const result = await callTool(tool, args, call);
        return ui ? withViewTouches(tool.name, result, context, args) : result;
      }
      return await runAsTask(
        when,
        (signal, onProgress) => callTool(tool, args, { ...call, control: { signal, onProgress } }),
        { tool: tool.name, args },
        { tasks, context, server, ctx },
      );
    } finally {
      done();
    }
  });
  if (modern) serveModernTasks(server, tasks);
  else {
    const unwatch = serveLegacyTasks(server, tasks, server);
    const closed = server.onclose;
    server.onclose = () => {
      unwatch();
      closed?.();
    };
  }
  return { server, log };
}

/** A connection served until its client leaves. */
export interface Connection {
  /** Ends the connection: its server, its log, its transport. */
  close(): Promise<void>;
}

/**
 * Serves MCP on `transport`, one client's line-based connection (stdio, or
 * a host's client socket), in whichever revision the client opens with:
 * `initialize` for 2025-11-25, `server/discover` or any request with a
 * 2026-07-28 `_meta` for that one. The SDK's entry may build a server for
 * the client's `server/discover` probe and drop it for a 2025-11-25 opening;
 * each server's log ends with it.
 */
export function serveConnection(
  transport: Transport,
  context: ToolContext,
  serverLog: Log,
  tasks: Tasks,
  clientLevel?: LoggingLevel,
): Connection {
  let current: SessionLog | undefined;
  // Subscriptions to tasks are served before the SDK's entry, whose router knows none.
  transport = new TaskListenTransport(transport, tasks);
  const handle = serveStdio(({ era }) => {
    current?.close();
    const { server, log } = createServer(context, serverLog, tasks, { clientLevel, era });
    current = log;
    return server;
  }, {
    transport,
    onerror: (error) => serverLog.stderr("debug", "server", error.message),
  });
  return {
    close: async () => {
      current?.close();
      await handle.close();
    },
  };
}
