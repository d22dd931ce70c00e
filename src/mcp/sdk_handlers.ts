/**
 * A way into the handlers the MCP SDK installs itself: `McpServer` sets its
 * `tools/list` and `tools/call` handlers through `setRequestHandler` when
 * the first tool is registered. {@link wrapSdkHandler}, called before, wraps
 * the one for a request schema on its way in, so Portal can shape what the
 * SDK answers (its errors, its listing) without forking its code. That
 * handler gets the request once the SDK has parsed it against its schema,
 * and a failure there is answered `-32603` with zod's issues as JSON:
 * {@link wrapInstalledHandler} wraps what runs before that parse.
 *
 * @module
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

// deno-lint-ignore no-explicit-any
type Handler = (request: any, extra: any) => unknown;

/** From now on, the handler `server` gets for `schema` goes through `wrap` first. */
export function wrapSdkHandler<H extends Handler>(
  server: McpServer,
  schema: unknown,
  wrap: (handler: H) => H,
): void {
  const low = server.server as unknown as { setRequestHandler: (s: unknown, h: H) => void };
  const install = low.setRequestHandler.bind(low);
  low.setRequestHandler = (given: unknown, handler: H) =>
    install(given, given === schema ? wrap(handler) : handler);
}

/**
 * From now on, `server` runs the handler it has for `method` (it must have
 * one) through `wrap`, which gets each request as it came, before the SDK
 * parses it. The SDK's Protocol keeps its handlers in a private map,
 * `_requestHandlers`: if it ever moves, this throws when the server is built.
 */
export function wrapInstalledHandler<H extends Handler>(
  server: McpServer,
  method: string,
  wrap: (handler: H) => H,
): void {
  const handlers = (server.server as unknown as { _requestHandlers?: Map<string, H> })
    ._requestHandlers;
  const handler = handlers?.get(method);
  if (handlers === undefined || handler === undefined) {
    throw new Error(`The MCP SDK holds no ${method} handler where Portal wraps it`);
  }
  handlers.set(method, wrap(handler));
}
