/**
 * The MCP face of Portal: an `McpServer` carrying every tool of {@link TOOLS},
 * each a thin translation onto the {@link ProcessManager} and
 * {@link ProgramRegistry} of its context.
 *
 * @module
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import denoJson from "../../deno.json" with { type: "json" };
import { INSTRUCTIONS } from "./instructions.ts";
import { registerTool, type ToolContext } from "./tools/tool.ts";
import { TOOLS } from "./tools/index.ts";

/** Builds the server with every tool registered on `context`. */
export function createServer(context: ToolContext): McpServer {
  const server = new McpServer(
    { name: "portal", title: "Portal", version: denoJson.version },
    { instructions: INSTRUCTIONS },
  );
  for (const tool of TOOLS) registerTool(server, context, tool);
  return server;
}
