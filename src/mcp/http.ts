/**
 * Portal over Streamable HTTP (`--http`), for clients that cannot start a
 * local process: `Deno.serve` at `/mcp`, each request first through the
 * {@link RequestGuard} (Host, Origin, bearer token), then to its session's
 * `WebStandardStreamableHTTPServerTransport` from the MCP SDK. A session is
 * one client from `initialize` to its `DELETE`, to an idle timeout, or to
 * the server's end (http_sessions.ts bounds how long and how many); it gets
 * its own MCP server and tool context, so what it may see is up to
 * {@link HttpOptions.openSession}. A request of MCP 2026-07-28 (its `_meta`
 * says so) has no session: it goes to the SDK's `createMcpHandler`, a server
 * per request on the one tool context of every such request
 * ({@link HttpOptions.modern}), nothing kept per client. What happens to
 * sessions and to refused requests is logged on stderr only: a session id
 * is all another client with the token would need to use that session.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serveHttp } from "./http.ts";
 * import { RequestGuard } from "../http_guard.ts";
 * import { Log } from "./logging.ts";
 *
 * const service = serveHttp({
 *   listen: { hostname: "127.0.0.1", port: 0 },
 *   guard: new RequestGuard({ listenHost: "127.0.0.1", allowHosts: [], token: "s3cret" }),
 *   log: new Log("error"),
 *   sessions: { idleMs: 60_000, max: 8 },
 *   openSession: () => assert.fail("no session without the token"),
 *   modern: () => assert.fail("no request without the token"),
 *   tasks: () => assert.fail("no task without the token"),
 * });
 * const response = await fetch(service.url, { method: "POST" });
 * assert.equal(response.status, 401);
 * await response.body?.cancel();
 * await service.close();
 * ```
 * @module
 */
import {
  createMcpHandler,
  isLegacyRequest,
  PROTOCOL_VERSION_META_KEY,
  readRequestBody,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { type EnvelopeError, envelopeError } from "./envelope.ts";
import { isTaskListen, listenResponse } from "./tasks/listen.ts";
import { REQUEST_MAX_BYTES } from "../limits.ts";
import type { Log } from "./logging.ts";
import { createServer } from "./server.ts";
import type { ToolContext } from "./tools/tool.ts";
import type { Tasks } from "./tasks/tasks.ts";
import type { RequestGuard } from "../http_guard.ts";
import { type EndReason, SessionTable } from "./http_sessions.ts";

/** The path of the MCP endpoint. */
export const MCP_PATH = "/mcp";

/** Where the server listens. */
export type Listen = Pick<Deno.NetAddr, "hostname" | "port">;

/** What one session works on, and how it ends. */
export interface SessionContext {
  context: ToolContext;
  /** Called once when the session ends (its client deleted it, or the server stops). */
  end(): Promise<void>;
}

/** How to serve. */
export interface HttpOptions {
  listen: Listen;
  guard: RequestGuard;
  log: Log;
  /** A session idle this long ends (0: never); at most `max` live at once. */
  sessions: { idleMs: number; max: number };
  /** The tools' context of a new session. */
  openSession(): SessionContext;
  /**
   * The tools' context of every 2026-07-28 request, which comes without a
   * session: asked for once, at the first, and kept for the server's lifetime.
   */
  modern(): ToolContext;
  /** The server's tasks (asked for at the first request). */
  tasks(): Tasks;
  /** Another service on the same listener (the watch page at `/watch`), which checks its requests itself. */
  mount?: { path: string; handle(request: Request): Response | Promise<Response> };
}

/** A listening server. */
export interface HttpService {
  /** The endpoint's URL, with the port actually bound. */
  url: string;
  /** Ends every session, then stops listening. */
  close(): Promise<void>;
}

interface HttpSession {
  transport: WebStandardStreamableHTTPServerTransport;
  end(): Promise<void>;
}

/** Starts listening; throws (e.g. `Deno.errors.AddrInUse`) when it cannot. */
export function serveHttp(options: HttpOptions): HttpService {
  const { guard, log } = options;
  const why: Record<EndReason, string> = {
    idle: `idle for ${options.sessions.idleMs / 1000} s (PORTAL_SESSION_IDLE_S)`,
    room: `idle the longest, for a new one (PORTAL_MAX_SESSIONS is ${options.sessions.max})`,
  };
  const sessions = new SessionTable<HttpSession>({
    ...options.sessions,
    onEnd: (id, reason) => log.stderr("info", "http", `session ${id} ends: ${why[reason]}`),
  });

  const handle = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    const mount = options.mount;
    if (mount && (path === mount.path || path.startsWith(`${mount.path}/`))) {
      return await mount.handle(request);
    }
    const refusal = guard.refuse(request);
    if (refusal) {
      log.stderr("warning", "http", `refused ${request.method}: ${refusal.reason}`);
      const headers: HeadersInit = refusal.status === 401 ? { "www-authenticate": "Bearer" } : {};
      return jsonError(refusal.status, refusal.reason, headers);
    }
    if (new URL(request.url).pathname !== MCP_PATH) {
      return jsonError(404, `Not found: the MCP endpoint is ${MCP_PATH}`);
    }
    const id = request.headers.get("mcp-session-id");
    if (id === null && request.method === "POST") return await withoutSession(request);
    if (id !== null) {
      const session = sessions.get(id);
      if (!session) {
        return jsonError(
          404,
          "Session not found (its client ended it, or it ended after PORTAL_SESSION_IDLE_S " +
            "idle, or to make room for a new one): initialize a new one",
          {},
          -32001,
        );
      }
      const done = sessions.begin(id);
      try {
        return untilDone(await session.transport.handleRequest(request), done);
      } catch (error) {
        done();
        throw error;
      }
    }
    return jsonError(400, "No session: POST an initialize request first");
  };

  /**
   * A POST without a session: a request of 2026-07-28 (its `_meta` says so),
   * served on its own; or a 2025-11-25 `initialize`, which starts a session.
   * The body is read once, within {@link REQUEST_MAX_BYTES}, for whichever.
   */
  const withoutSession = async (request: Request): Promise<Response> => {
    const read = await readRequestBody(request, REQUEST_MAX_BYTES);
    if (read.tooLarge) {
      return jsonError(413, `A request is at most ${REQUEST_MAX_BYTES} bytes: send less per call`);
    }
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(read.text);
    } catch {
      return jsonError(400, "Parse error: the body is not JSON", {}, -32700);
    }
    if (!await isLegacyRequest(request, parsedBody)) {
      const params = (parsedBody as { params?: unknown } | null)?.params;
      const error = headerMismatch(request, params) ?? envelopeError(params);
      const { id = null } = (parsedBody ?? {}) as { id?: unknown };
      if (error) return Response.json({ jsonrpc: "2.0", id, error }, { status: 400 });
      if (isTaskListen(parsedBody)) {
        return listenResponse(options.tasks(), parsedBody, closing.signal);
      }
      return await modern.fetch(request, { parsedBody });
    }
    // A request without a session may be an initialize: give it a session of its own,
    // and drop that session if the transport did not start one.
    if (!sessions.makeRoom()) {
      return jsonError(
        503,
        `Portal has ${options.sessions.max} sessions (PORTAL_MAX_SESSIONS), each with a ` +
          "request open: end one (its client's DELETE) or ask the person to raise the limit",
      );
    }
    const session = await openSession();
    const response = await session.transport.handleRequest(request, { parsedBody });
    const started = session.transport.sessionId;
    if (started === undefined) {
      await session.end();
      return response;
    }
    return untilDone(response, sessions.begin(started));
  };

  // Aborted when the server stops: its subscriptions end with a `complete` result.
  const closing = new AbortController();

  // 2026-07-28: a server per request, on the one context of every such request.
  let modernContext: ToolContext | undefined;
  const modern = createMcpHandler(
    () =>
      createServer(modernContext ??= options.modern(), log, options.tasks(), { era: "modern" })
        .server,
    {
      legacy: "reject",
      maxRequestBodySize: REQUEST_MAX_BYTES,
      onerror: (error) => log.stderr("debug", "http", error.message),
    },
  );

  const openSession = async (): Promise<HttpSession> => {
    const { context, end: endContext } = options.openSession();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      maxRequestBodySize: REQUEST_MAX_BYTES,
      onsessioninitialized: (id: string) => {
        sessions.add(id, session);
        log.stderr("info", "http", `session ${id} started`);
      },
    });
    const { server, log: sessionLog } = createServer(context, log, options.tasks());
    let ended: Promise<void> | undefined;
    const session: HttpSession = {
      transport,
      end: () =>
        ended ??= (async () => {
          const id = transport.sessionId;
          if (id !== undefined) {
            sessions.delete(id);
            log.stderr("info", "http", `session ${id} ended`);
          }
          sessionLog.close();
          await endContext();
          await server.close();
        })(),
    };
    // The transport closes on the client's DELETE; the SDK chains its own handler after ours.
    transport.onclose = () => void session.end();
    await server.connect(transport);
    return session;
  };

  const http = Deno.serve({
    hostname: options.listen.hostname,
    port: options.listen.port,
    // Deno's default prints the address on stdout, which a server keeps for the protocol.
    onListen: () => {},
  }, handle);
  const { hostname, port } = http.addr as Deno.NetAddr;
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  return {
    url: `http://${host}:${port}${MCP_PATH}`,
    close: async () => {
      closing.abort();
      sessions.close();
      await Promise.all(sessions.values().map((session) => session.end()));
      await modern.close();
      await http.shutdown();
    },
  };
}

/**
 * `response`, calling `done` once its body has been sent or abandoned (a
 * stream of server messages stays open as long as its client listens).
 */
function untilDone(response: Response, done: () => void): Response {
  if (response.body === null) {
    done();
    return response;
  }
  const body = response.body.pipeThrough(new TransformStream({ flush: done, cancel: done }));
  const { status, statusText, headers } = response;
  return new Response(body, { status, statusText, headers });
}

/**
 * The `-32020` (HeaderMismatch) error of a 2026-07-28 request whose
 * `MCP-Protocol-Version` header names another revision than its `_meta`
 * (SEP-2575: HTTP 400); undefined when they agree or either is absent.
 */
function headerMismatch(request: Request, params: unknown): EnvelopeError | undefined {
  const header = request.headers.get("mcp-protocol-version");
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const claimed = meta?.[PROTOCOL_VERSION_META_KEY];
  if (header === null || claimed === undefined || header === claimed) return undefined;
  return {
    code: HEADER_MISMATCH,
    message: `HeaderMismatch: the MCP-Protocol-Version header says ${
      JSON.stringify(header.slice(0, 40))
    } but _meta["${PROTOCOL_VERSION_META_KEY}"] says ${
      JSON.stringify(String(claimed).slice(0, 40))
    }: send the same revision in both.`,
  };
}

/** SEP-2575's HeaderMismatch. */
const HEADER_MISMATCH = -32020;

/** A JSON-RPC error as the SDK's transport words its own refusals. */
function jsonError(status: number, message: string, headers: HeadersInit = {}, code = -32000) {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, {
    status,
    headers,
  });
}
