/**
 * Portal: an MCP server on stdio for driving interactive terminal programs.
 *
 * ```sh
 * deno run -A main.ts
 * ```
 * Environment: `PORTAL_DB_PATH` (records database; default a fresh
 * `.portal/portal-<pid>-<ms>.db`), `PORTAL_DATA_DIR` (program registry directory).
 *
 * @module
 */
import process from "node:process";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createPrivateFile, dataDir, recordsDbPath } from "./src/core/paths.ts";
import { ProcessManager } from "./src/core/process_manager.ts";
import { ProgramRegistry } from "./src/core/program_registry.ts";
import { RecordStore } from "./src/core/record_store.ts";
import { createServer } from "./src/mcp/server.ts";
import { SHUTDOWN_SIGNALS } from "./src/platform.ts";

if (import.meta.main) {
  const dbPath = recordsDbPath();
  createPrivateFile(dbPath);
  const manager = new ProcessManager(new RecordStore(dbPath));
  const registry = new ProgramRegistry(dataDir());
  const server = createServer({ manager, registry });

  // A long-lived server outlives a stray failure: report it on stderr (stdout is the
  // protocol) instead of letting it end the server and every program with it.
  const report = (what: string) => (event: Event) => {
    event.preventDefault();
    const detail = event instanceof ErrorEvent
      ? event.error
      : (event as PromiseRejectionEvent).reason;
    console.error(`portal: ${what}:`, detail);
  };
  globalThis.addEventListener("error", report("uncaught error"));
  globalThis.addEventListener("unhandledrejection", report("unhandled rejection"));

  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    // Kills everything, at most SHUTDOWN_DEADLINE_MS, then closes the store whatever won.
    await manager.shutdown().catch((error) => console.error("portal: shutdown:", error));
    registry.close();
    Deno.exit(0);
  };
  // The client closing our stdin is the normal way an MCP stdio server is told to stop.
  process.stdin.on("end", shutdown);
  process.stdin.on("close", shutdown);
  for (const signal of SHUTDOWN_SIGNALS) Deno.addSignalListener(signal, shutdown);

  await server.connect(new StdioServerTransport());
}
