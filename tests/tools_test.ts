import { assert, assertEquals, assertMatch } from "./helpers/assert.ts";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { Portal } from "../dev/portal_client.ts";

const TOOLS = [
  "process_start",
  "process_read",
  "process_read_new",
  "process_write",
  "process_signal",
  "process_list",
  "process_inspect",
  "process_kill",
  "process_kill_all",
  "process_clear",
  "process_cleanup",
  "process_screen",
  "program_query",
  "program_record",
];
const READ_ONLY = [
  "process_list",
  "process_inspect",
  "process_read",
  "process_read_new",
  "program_query",
];
const DESTRUCTIVE = ["process_kill", "process_kill_all", "process_clear", "process_cleanup"];

Deno.test("tools/list: the 14 tools, described, annotated, with output schemas", async () => {
  await using portal = await Portal.start();
  const tools: Tool[] = (await portal.client.listTools()).tools;
  assertEquals(tools.map((t) => t.name).sort(), [...TOOLS].sort());
  for (const tool of tools) {
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
      DESTRUCTIVE.includes(tool.name) || tool.name === "process_signal",
      tool.name,
    );
  }
  const killAll = tools.find((t) => t.name === "process_kill_all")!;
  assertMatch(killAll.description!, /WARNING: immediately kills EVERY running process/);
  // Lean: the whole listing stays small enough to sit in every agent's context.
  const size = JSON.stringify(tools).length;
  assert(size < 24_000, `tools/list is ${size} characters`);
});

Deno.test("initialize: instructions say how to choose pty and the usual loop", async () => {
  await using portal = await Portal.start();
  const instructions = portal.client.getInstructions() ?? "";
  assertMatch(instructions, /pty: true/);
  assertMatch(instructions, /process_read_new/);
  assertMatch(instructions, /program_query/);
  assertEquals(portal.client.getServerVersion()?.name, "portal");
});

Deno.test("results come as structuredContent and as the same JSON text", async () => {
  await using portal = await Portal.start();
  const result = await portal.client.callTool({ name: "process_list", arguments: {} });
  const text = (result.content as { type: string; text: string }[])[0];
  assertEquals(text.type, "text");
  assertEquals(JSON.parse(text.text), result.structuredContent);
  assertEquals(result.structuredContent, { processes: [] });
});
