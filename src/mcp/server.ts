/**
 * The MCP face of Portal: an `McpServer` carrying every tool of {@link TOOLS},
 * each a thin translation onto the {@link ProcessManager} and
 * {@link ProgramRegistry} of its context, with the `logging` capability: the
 * server's {@link Log} reaches its client as `notifications/message`.
 *
 * @module
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import denoJson from "../../deno.json" with { type: "json" };
import { INSTRUCTIONS } from "./instructions.ts";
import type { Log, SessionLog } from "./logging.ts";
import { boundToolErrors, registerTool, type ToolContext } from "./tools/tool.ts";
import { TOOLS } from "./tools/index.ts";
import { compactListing } from "./tools/listing.ts";

/** The version this server reports (`initialize`, `--version`): deno.json's. */
export const VERSION: string = denoJson.version;

/**
 * Builds the server of one session, with every tool registered on `context`;
 * `log` is that session's part of the server's log (close it when the
 * session ends).
 */
export function createServer(context: ToolContext, serverLog: Log): {
  server: McpServer;
  log: SessionLog;
} {
  const server = new McpServer(
    { name: "portal", title: "Portal", version: VERSION },
    { instructions: INSTRUCTIONS, capabilities: { logging: {} } },
  );
  const log = serverLog.session(server);
  boundToolErrors(server);
  compactListing(server);
  for (const tool of TOOLS) registerTool(server, context, tool, log);
  return { server, log };
}
