/**
 * A way into the handlers the MCP SDK installs itself: `McpServer` sets its
 * `tools/list` and `tools/call` handlers through `setRequestHandler` when
 * the first tool is registered. {@link wrapSdkHandler}, called before, wraps
 * the one for a request schema on its way in, so Portal can shape what the
 * SDK answers (its errors, its listing) without forking its code.
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
