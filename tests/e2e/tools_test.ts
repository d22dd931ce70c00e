import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { TOOLS } from "../../src/mcp/tools/index.ts";
import { LISTING_MAX_CHARS } from "../../src/mcp/tools/listing.ts";
import { sharedPortal } from "../helpers/portal.ts";

// What the server says of itself, asked of one server.
const { portalTest } = sharedPortal();

/** Tools that change nothing, not even an idle timer or a cursor. */
const READ_ONLY = ["process_list", "process_inspect", "process_watch", "program_query"];
/** Tools that can end or delete something, directly or through the program they drive. */
const DESTRUCTIVE = [
  "process_start",
  "process_write",
  "process_signal",
  "process_kill",
  "process_kill_all",
  "process_clear",
  "process_cleanup",
];
const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

portalTest(
  "tools/list: the 15 tools, described, annotated, with output schemas",
  async (portal) => {
    const tools: Tool[] = (await portal.client.listTools()).tools;
    // The server lists exactly the tool list of src/mcp/tools/index.ts, in its order.
    assertEquals(tools.map((t) => t.name), TOOLS.map((t) => t.name));
    for (const tool of tools) {
      const declared = TOOLS.find((t) => t.name === tool.name)!;
      assertEquals(tool.annotations, declared.annotations);
      for (const hint of HINTS) {
        assertEquals(typeof tool.annotations?.[hint], "boolean", `${tool.name} states ${hint}`);
      }
      assert(tool.title, `${tool.name} has a title`);
      assert((tool.description ?? "").length > 80, `${tool.name} has a real description`);
      assertEquals(tool.outputSchema?.type, "object", `${tool.name} has an output schema`);
      assertEquals(
        tool.annotations?.readOnlyHint === true,
        READ_ONLY.includes(tool.name),
        tool.name,
      );
      assertEquals(
        tool.annotations?.destructiveHint === true,
        DESTRUCTIVE.includes(tool.name),
        tool.name,
      );
    }
    const killAll = tools.find((t) => t.name === "process_kill_all")!;
    assertMatch(
      killAll.description!,
      /WARNING: immediately kills EVERY running process this client started.* other clients' kept ones run on/,
    );
    // Lean: the whole listing stays small enough to sit in every agent's context. It had grown
    // to 30.5k characters (waits, keys, limits, secrets, keep; 32.2k with process_watch); issue 16
    // brought it under 15k: short descriptions with the rest said once in the instructions, output
    // schemas as field names and types, and no schema text that says what JSON Schema says anyway
    // (listing.ts). Since then: shell integration's fields (shell_integration at start, integrate
    // on write, and in the replies of both and of process_inspect with last_command) +300;
    // process_read's search by lines (pattern, line, context; lines, matches, total_lines,
    // stopped_at_line in its reply: issue 40) +350, what it does said in the instructions;
    // 2025-11-25's execution.taskSupport on the three tools that wait (VS Code looks for it)
    // +117; for a client that renders apps, process_watch's view (app_view_test) +13. That made
    // 15,439 here; cut back to 14,889 by defaults as JSON Schema's `default` rather than
    // "Default 10000." (-301), and field descriptions that repeated their name, their type, their
    // tool's description or the instructions (process_screen's cols/rows, keys, needs_pty,
    // signal, program; -249).
    const size = JSON.stringify(tools).length;
    assert(size <= LISTING_MAX_CHARS, `tools/list is ${size} characters`);
  },
  { portable: true },
);

portalTest("initialize: instructions say how to choose pty and the usual loop", (portal) => {
  const instructions = portal.client.getInstructions() ?? "";
  assertMatch(instructions, /pty: true/);
  assertMatch(instructions, /process_read_new/);
  assertMatch(instructions, /program_query/);
  assertEquals(portal.client.getServerVersion()?.name, "portal");
}, { portable: true });

portalTest("results come as structuredContent and as the same JSON text", async (portal) => {
  const result = await portal.client.callTool({ name: "process_list", arguments: {} });
  const text = (result.content as { type: string; text: string }[])[0];
  assertEquals(text.type, "text");
  assertEquals(JSON.parse(text.text), result.structuredContent);
  assertEquals(result.structuredContent, { processes: [] });
}, { portable: true });
