/**
 * The MCP face of Portal: an `McpServer` carrying the 14 tools, each a thin
 * translation onto the {@link ProcessManager} and {@link ProgramRegistry}.
 *
 * @module
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import denoJson from "../../deno.json" with { type: "json" };
import { INSTRUCTIONS } from "./instructions.ts";
import { registerTool, type ToolContext } from "./tools/tool.ts";
import { processStart } from "./tools/process_start.ts";
import { processRead } from "./tools/process_read.ts";
import { processReadNew } from "./tools/process_read_new.ts";
import { processWrite } from "./tools/process_write.ts";
import { processSignal } from "./tools/process_signal.ts";
import { processList } from "./tools/process_list.ts";
import { processInspect } from "./tools/process_inspect.ts";
import { processKill } from "./tools/process_kill.ts";
import { processKillAll } from "./tools/process_kill_all.ts";
import { processClear } from "./tools/process_clear.ts";
import { processCleanup } from "./tools/process_cleanup.ts";
import { processScreen } from "./tools/process_screen.ts";
import { programQuery } from "./tools/program_query.ts";
import { programRecord } from "./tools/program_record.ts";

/** Builds the server with every tool registered on `context`. */
export function createServer(context: ToolContext): McpServer {
  const server = new McpServer(
    { name: "portal", title: "Portal", version: denoJson.version },
    { instructions: INSTRUCTIONS },
  );
  registerTool(server, context, processStart);
  registerTool(server, context, processRead);
  registerTool(server, context, processReadNew);
  registerTool(server, context, processWrite);
  registerTool(server, context, processSignal);
  registerTool(server, context, processList);
  registerTool(server, context, processInspect);
  registerTool(server, context, processKill);
  registerTool(server, context, processKillAll);
  registerTool(server, context, processClear);
  registerTool(server, context, processCleanup);
  registerTool(server, context, processScreen);
  registerTool(server, context, programQuery);
  registerTool(server, context, programRecord);
  return server;
}
