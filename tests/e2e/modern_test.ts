/**
 * MCP 2026-07-28 beside 2025-11-25: the SDK v2 client pinned to the new
 * revision over stdio (through a door and `--no-host`) and over HTTP, and
 * raw lines where the wire itself is the point (`resultType`, `ttlMs`,
 * `cacheScope`, the errors of a bad `_meta`, the log messages a request
 * asks for).
 *
 * @module
 */
import {
  StreamableHTTPClientTransport,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/client";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { MODERN, modernClient, ModernPortal } from "../../dev/modern_client.ts";
import { callTool, Portal } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { INSTRUCTIONS } from "../../src/mcp/instructions.ts";
import { TOOLS } from "../../src/mcp/tools/index.ts";
import { HttpPortal } from "../helpers/http_portal.ts";
import { posixTest } from "../helpers/platform.ts";
import { pythonAnswers } from "../helpers/python_repl.ts";
import { rawLines } from "../../dev/raw_lines.ts";

const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
const LOG_KEY = "io.modelcontextprotocol/logLevel";

/** The `_meta` of a 2026-07-28 request, with `extra` keys. */
function meta(extra: Record<string, unknown> = {}) {
  return {
    [VERSION_KEY]: MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
    [CAPABILITIES_KEY]: {},
    ...extra,
  };
}

for (const noHost of [false, true]) {
  posixTest(
    `2026-07-28 over stdio${noHost ? " (--no-host)" : ""}: discover, list, a python step`,
    async () => {
      await using portal = await ModernPortal.start({ noHost });
      const { client } = portal;
      assertEquals(client.getProtocolEra(), "modern");
      assertEquals(client.getNegotiatedProtocolVersion(), MODERN);
      const discovered = client.getDiscoverResult()!;
      // Both revisions: 2025-11-25 (and older) by an initialize.
      assertEquals(discovered.supportedVersions.slice(0, 2), [MODERN, "2025-11-25"]);
      assert(discovered.capabilities.tools, "the tools capability");
      const { extensions } = discovered.capabilities as { extensions?: Record<string, unknown> };
      assertEquals(extensions, { "io.modelcontextprotocol/tasks": {} });
      assertEquals(discovered.instructions, INSTRUCTIONS);
      assertEquals(client.getServerVersion()?.name, "portal");
      const { tools } = await client.listTools();
      assertEquals(tools.map((t) => t.name), TOOLS.map((t) => t.name));
      const { id, step } = await pythonAnswers(portal);
      assertEquals([step.state, step.output], ["waiting_for_input", "42\n>>> "]);
      await portal.call("process_kill", { id });
    },
  );
}

posixTest("2026-07-28 and 2025-11-25 list the same tools, in the same order", async () => {
  await using modern = await ModernPortal.start({ noHost: true });
  await using legacy = await Portal.start({ noHost: true });
  // But 2025-11-25's execution.taskSupport on the tools that wait: 2026-07-28 has no such field.
  const legacyTools = (await legacy.client.listTools()).tools.map(
    (tool: Record<string, unknown>) => {
      const { execution: _, ...rest } = tool;
      return rest;
    },
  );
  assertEquals((await modern.client.listTools()).tools, legacyTools);
});

/** A `--no-host` server spoken to in raw lines, in a directory of its own. */
async function rawServer() {
  const dir = await tempDir("portal-raw-");
  const lines = await rawLines(dir.path, { noHost: true });
  return {
    request: lines.request,
    async [Symbol.asyncDispose]() {
      await lines[Symbol.asyncDispose]();
      await dir[Symbol.asyncDispose]();
    },
  };
}

posixTest("2026-07-28 on the wire: resultType, ttlMs and cacheScope, serverInfo", async () => {
  await using server = await rawServer();
  const discover = (await server.request("server/discover", { _meta: meta() })).answer.result;
  assertEquals(discover.resultType, "complete");
  assertEquals(discover.supportedVersions, [MODERN, ...SUPPORTED_PROTOCOL_VERSIONS]);
  assertEquals(discover._meta["io.modelcontextprotocol/serverInfo"].name, "portal");
  const list = (await server.request("tools/list", { _meta: meta() })).answer.result;
  assertEquals([list.resultType, list.ttlMs, list.cacheScope], ["complete", 3_600_000, "public"]);
  assertEquals(list.tools.map((t: { name: string }) => t.name), TOOLS.map((t) => t.name));
  const call = (await server.request("tools/call", {
    name: "process_list",
    arguments: {},
    _meta: meta(),
  })).answer.result;
  assertEquals([call.resultType, call.structuredContent], ["complete", { processes: [] }]);
  // A tool error is a result too.
  const refused = (await server.request("tools/call", {
    name: "process_kill",
    arguments: { id: 99 },
    _meta: meta(),
  })).answer.result;
  assertEquals([refused.resultType, refused.isError], ["complete", true]);
});

posixTest("2026-07-28 errors: a revision not spoken, a missing or wrong _meta field", async () => {
  await using server = await rawServer();
  const call = (_meta: unknown) =>
    server.request("tools/call", { name: "process_list", arguments: {}, _meta });
  // First request, and on a connection already in 2026-07-28.
  for (let round = 0; round < 2; round++) {
    const { error } = (await call(meta({ [VERSION_KEY]: "2099-01-01" }))).answer;
    assertEquals(error.code, -32022);
    assertMatch(error.message, /Unsupported protocol version 2099-01-01: Portal speaks 2026-07-28/);
    assertEquals(error.data.supported.slice(0, 2), [MODERN, "2025-11-25"]);
    assertEquals(error.data.requested, "2099-01-01");
    if (round === 0) await call(meta());
  }
  const missing = (await call({ [VERSION_KEY]: MODERN })).answer.error;
  assertEquals(missing.code, -32602);
  assertMatch(missing.message, /io\.modelcontextprotocol\/clientCapabilities"\] is missing/);
  const wrong = (await call(meta({ [CAPABILITIES_KEY]: "all" }))).answer.error;
  assertMatch(wrong.message, /clientCapabilities"\] is not an object/);
  const level = (await call(meta({ [LOG_KEY]: "loud" }))).answer.error;
  assertMatch(level.message, /logLevel"\] must be one of debug, info/);
  // No _meta at all, on a 2026-07-28 connection: the SDK names the fields.
  const none = (await server.request("tools/list", {})).answer.error;
  assertMatch(none.message, /protocolVersion, io\.modelcontextprotocol\/clientCapabilities/);
  // What 2026-07-28 removed is not there.
  assertEquals((await server.request("ping", { _meta: meta() })).answer.error.code, -32601);
  const setLevel = await server.request("logging/setLevel", { level: "debug", _meta: meta() });
  assertEquals(setLevel.answer.error.code, -32601);
});

posixTest("2026-07-28 log messages: only to a request that asks, from its level", async () => {
  await using server = await rawServer();
  const logs = (before: { method?: string; params?: { level: string } }[]) =>
    before.filter((m) => m.method === "notifications/message").map((m) => m.params!.level);
  const list = { name: "process_list", arguments: {} };
  assertEquals(logs((await server.request("tools/call", { ...list, _meta: meta() })).before), []);
  const asked = await server.request("tools/call", {
    ...list,
    _meta: meta({ [LOG_KEY]: "debug" }),
  });
  assertEquals(logs(asked.before), ["debug"]);
  const kill = { name: "process_kill", arguments: { id: 7 } };
  const above = await server.request("tools/call", { ...kill, _meta: meta({ [LOG_KEY]: "info" }) });
  assertEquals(logs(above.before), ["info"]);
  const quiet = await server.request("tools/call", {
    ...kill,
    _meta: meta({ [LOG_KEY]: "error" }),
  });
  assertEquals(logs(quiet.before), []);
});

posixTest(
  "2026-07-28 over HTTP: no session, the token, processes kept for every client",
  async () => {
    await using server = await HttpPortal.start();
    const connect = (token: string | null, name: string) =>
      modernClient(
        new StreamableHTTPClientTransport(server.url, {
          requestInit: { headers: token === null ? {} : { authorization: `Bearer ${token}` } },
        }),
        {},
        name,
      );
    // Without the token, nothing: the probe is refused with 401.
    const refused = await connect(null, "stranger").then(() => null, (error: Error) => error);
    assertMatch(String(refused), /401/);
    const first = await connect(server.token, "first");
    const second = await connect(server.token, "second");
    try {
      assertEquals(first.getProtocolEra(), "modern");
      assertEquals(first.getDiscoverResult()?.supportedVersions.slice(0, 2), [
        MODERN,
        "2025-11-25",
      ]);
      const { id } = await callTool(first, "process_start", { command: "cat" });
      // Another client of the same revision sees it: there is no session to keep it apart.
      const listed = await callTool(second, "process_list");
      assertEquals(listed.processes.map((p: { id: number }) => p.id), [id]);
      // A 2025-11-25 session does not (it sees its own processes and kept ones).
      const legacy = await server.connect();
      assertEquals((await callTool(legacy, "process_list")).processes, []);
      // The process outlives the client that started it.
      await first.close();
      assertEquals((await callTool(second, "process_list")).processes[0].status, "running");
      // On the wire: a modern request gets no session id.
      const response = await server.modernPost("tools/list", { _meta: meta() });
      assertEquals(response.status, 200);
      assertEquals(response.headers.get("mcp-session-id"), null);
      const body = await response.json();
      assertEquals([body.result.resultType, body.result.cacheScope], ["complete", "public"]);
      await callTool(second, "process_kill", { id });
    } finally {
      await second.close();
    }
  },
);
