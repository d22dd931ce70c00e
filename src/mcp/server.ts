/**
 * The MCP face of Portal: an `McpServer` carrying every tool of {@link TOOLS},
 * each a thin translation onto the {@link ProcessManager} and
 * {@link ProgramRegistry} of its context, with the `logging` capability: the
 * server's {@link Log} reaches its client as `notifications/message`.
 *
 * @module
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { VERSION } from "../version.ts";
import { INSTRUCTIONS } from "./instructions.ts";
import type { Log, LoggingLevel, SessionLog } from "./logging.ts";
import { registerTool, type ToolContext } from "./tools/tool.ts";
import { screenToolCalls } from "./tools/invalid_params.ts";
import { TOOLS } from "./tools/index.ts";
import { compactListing } from "./tools/listing.ts";

/**
 * Builds the server of one session, with every tool registered on `context`;
 * `log` is that session's part of the server's log (close it when the
 * session ends); its client hears `clientLevel` and above until it sets a
 * level (default: the server's).
 */
export function createServer(context: ToolContext, serverLog: Log, clientLevel?: LoggingLevel): {
  server: McpServer;
  log: SessionLog;
} {
  const server = new McpServer(
    { name: "portal", title: "Portal", version: VERSION },
    { instructions: INSTRUCTIONS, capabilities: { logging: {} } },
  );
  const log = serverLog.session(server, clientLevel);
  compactListing(server);
  for (const tool of TOOLS) registerTool(server, context, tool, log);
  screenToolCalls(server, TOOLS, log);
  return { server, log };
}
