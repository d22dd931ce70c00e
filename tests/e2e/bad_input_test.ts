/**
 * The bad input matrix: every tool, every argument, given what it must not
 * take (missing, unknown, wrong-typed, out of range, NUL in a name, lone
 * surrogates, megabytes), gets a tool error in one line that names the
 * argument, quotes at most a short prefix of the value, and stays short; a
 * request that is malformed as a whole (its `arguments` no object, an unknown
 * tool) gets JSON-RPC Invalid params (-32602), also in one short line; the
 * server serves on. The arguments and their types come from the tools/list
 * the server sends, so a new argument is covered without touching this file.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { Portal } from "../../dev/portal_client.ts";
import { waitFor } from "../../dev/wait.ts";
import { ERROR_MAX_CHARS, QUOTED_CHARS } from "../../src/limits.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { ID_TOOLS } from "../helpers/id_tools.ts";
import { pidAlive } from "../helpers/processes.ts";
import { sharedPortal } from "../helpers/portal.ts";
import { posixTest } from "../helpers/platform.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

// Each test asserts only about its own processes: one server serves them all (but the one that
// sends 11 MiB, which has its own).
const { portalTest } = sharedPortal();

/** The server's processes but those of `earlier` (ids): what this test's calls left. */
async function processesSince(portal: Portal, earlier: number[]): Promise<Json[]> {
  const { processes } = await portal.call("process_list");
  return processes.filter((p: Json) => !earlier.includes(p.id));
}

/** The ids of the server's processes now. */
async function ids(portal: Portal): Promise<number[]> {
  return (await processesSince(portal, [])).map((p) => p.id);
}

/** Arguments that carry a name into a C string, a key or a pattern: a NUL there is an error. */
const NAMES = ["command", "cwd", "prompt", "expect", "signal", "program", "notes", "args", "env"];

/** A call that must fail: its message, checked for what every error message promises. */
async function refused(portal: Portal, tool: string, args: Json, names: string): Promise<string> {
  const result = await portal.client.callTool({ name: tool, arguments: args }) as CallToolResult;
  const text = (result.content[0] as { text: string } | undefined)?.text ?? "";
  const what = `${tool} ${JSON.stringify(args).slice(0, 120)}`;
  assert(result.isError, `${what} should fail, got ${JSON.stringify(result).slice(0, 300)}`);
  assert(text.length <= ERROR_MAX_CHARS, `${what}: a ${text.length}-character error`);
  assert(!text.includes("\n"), `${what}: more than one line: ${text.slice(0, 300)}`);
  const kind = (result._meta?.["io.portal/error"] as { kind?: string } | undefined)?.kind;
  assert(kind !== undefined && kind !== "internal", `${what}: ${kind}: ${text}`);
  const named = new RegExp(`(^|[^\\w])${names.replace(/[[\]]/g, "\\$&")}($|[^\\w])`, "i");
  assert(named.test(text), `${what}: the error should name ${names}: ${text}`);
  // A value is quoted by a short prefix only: no long run of what was sent comes back.
  assert(!/(.)\1{100,}/.test(text), `${what}: the error echoes the value: ${text.slice(0, 300)}`);
  return text;
}

/** One value of the wrong type for a JSON schema property. */
function wrongType(schema: Json): unknown {
  if (schema.anyOf) return true;
  if (schema.enum) return 5;
  return { string: 123, integer: "7", number: "7", boolean: "yes", array: "x", object: "x" }[
    schema.type as string
  ];
}

/** Numbers the property's bounds refuse, among the awkward ones (negative, huge, fractional, 0, 100000). */
function badNumbers(schema: Json): number[] {
  const min = schema.minimum ?? -Infinity;
  const max = schema.maximum ?? Infinity;
  const above = schema.exclusiveMinimum;
  const out = (n: number) =>
    n < min || n > max || (above !== undefined && n <= above) ||
    (schema.type === "integer" && !Number.isInteger(n));
  return [-1, 1.5, 1e300, 0, 100_000].filter(out);
}

/** Arguments each tool takes without complaint, beside those that need only `id` (process `live`). */
function validArgs(live: number): Record<string, Json> {
  return {
    process_start: { command: "true" },
    process_write: { id: live, content: "x" },
    process_signal: { id: live, signal: "SIGWINCH" },
    program_query: { program: "ssh" },
    program_record: { program: "ssh", needs_pty: true },
  };
}

portalTest(
  "bad input matrix: every tool and argument, refused with a short error naming it",
  async (portal) => {
    const tools: Tool[] = (await portal.client.listTools()).tools;
    const before = await ids(portal);
    const live = await portal.spawn("cat", [], { pty: true });
    const valid = validArgs(live);
    let calls = 0;
    for (const tool of tools) {
      const schema = tool.inputSchema as Json;
      const base = valid[tool.name] ?? ("id" in schema.properties ? { id: live } : {});
      const fail = (args: Json, names: string) => {
        calls++;
        return refused(portal, tool.name, args, names);
      };
      await fail({ ...base, bogus_argument: 1 }, "bogus_argument");
      for (const required of schema.required ?? []) {
        const { [required]: _, ...without } = base;
        await fail(without, required);
      }
      for (const [name, property] of Object.entries<Json>(schema.properties)) {
        await fail({ ...base, [name]: wrongType(property) }, name);
        await fail({ ...base, [name]: null }, name);
        if (property.type === "integer" || property.type === "number") {
          for (const n of badNumbers(property)) await fail({ ...base, [name]: n }, name);
        }
        const strings = property.type === "string" || property.anyOf;
        if (strings) {
          await fail({ ...base, [name]: "a\ud800b" }, name);
          await fail({ ...base, [name]: "x".repeat(2 << 20) }, name);
          if (NAMES.includes(name)) await fail({ ...base, [name]: "a\0b" }, name);
        }
        if (property.type === "array") {
          await fail({ ...base, [name]: ["a\ud800b"] }, `${name}[0]`);
          await fail({ ...base, [name]: [7] }, name);
          await fail({ ...base, [name]: ["x".repeat(300_000)] }, name);
          if (NAMES.includes(name)) await fail({ ...base, [name]: ["a\0b"] }, name);
        }
        if (property.type === "object") {
          for (const env of [{ A: 1 }, { A: null }, { A: true }, { A: "a\0b" }, { "A\0": "b" }]) {
            await fail({ ...base, [name]: env }, name);
          }
          await fail({ ...base, [name]: { "\ud800": "x" } }, name);
          await fail({ ...base, [name]: { ["K".repeat(1 << 20)]: "v" } }, name);
          await fail({ ...base, [name]: { A: "v".repeat(300_000) } }, name);
        }
      }
    }
    assert(calls > 250, `${calls} calls`);
    // Nothing above ran: the one process is still the only new one, running, untouched.
    const processes = await processesSince(portal, before);
    assertEquals(processes.map((p: Json) => [p.id, p.status, p.io_count]), [[live, "running", 0]]);
  },
);

portalTest(
  "malformed arguments: every tool answers Invalid params (-32602) in one line naming them",
  async (portal) => {
    const tools: Tool[] = (await portal.client.listTools()).tools;
    const before = await ids(portal);
    const given: [unknown, string][] = [
      ["ls -l", "a string"],
      [null, "null"],
      [["ls", "-l"], "an array"],
      [5, "5"],
      [true, "true"],
    ];
    for (const tool of tools) {
      for (const [args, got] of given) {
        assertEquals(
          await portal.invalid(tool.name, args),
          `${tool.name}: "arguments" must be an object (got ${got})`,
        );
      }
    }
    // A request without a tool's name, or with a number for it.
    assertEquals(
      await portal.invalid(5 as never, {}),
      `tools/call: "name" must be a string (got 5)`,
    );
    // An unknown tool whose arguments are malformed too: both said, the name quoted.
    assertEquals(
      await portal.invalid("process_stop", "x"),
      `"process_stop": "arguments" must be an object (got a string)`,
    );
    assertEquals(await ids(portal), before);
  },
);

portalTest(
  "arguments a tool's schema refuses: a tool error in one line naming each, saying what it must be",
  async (portal) => {
    const tools: Tool[] = (await portal.client.listTools()).tools;
    const live = await portal.spawn("cat");
    const valid = validArgs(live);
    for (const tool of tools) {
      const schema = tool.inputSchema as Json;
      const names = Object.keys(schema.properties);
      const base = valid[tool.name] ?? ("id" in schema.properties ? { id: live } : {});
      const fail = (args: Json) => refused(portal, tool.name, args, tool.name);
      assertEquals(
        await fail({ ...base, bogus: 1 }),
        `${tool.name}: "bogus" is not an argument ` +
          (names.length ? `(they are: ${names.join(", ")})` : "(this tool takes none)"),
      );
      for (const required of schema.required ?? []) {
        const { [required]: _, ...without } = base;
        assertMatch(
          await fail(without),
          new RegExp(`^${tool.name}: "${required}" is required \\(`),
        );
      }
      for (const [name, property] of Object.entries<Json>(schema.properties)) {
        assertMatch(
          await fail({ ...base, [name]: wrongType(property) }),
          new RegExp(`^${tool.name}: "${name}" must be [^;]+ \\(got [^;]+\\)$`),
        );
      }
    }
    // Several at once, each said; a bound and a name in a record.
    assertEquals(
      await refused(portal, "process_start", {
        command: 7,
        args: ["-l", 2],
        env: { A: true, "B\0": "x" },
        cols: 1e300,
        wait: "redy",
        pty: "yes",
      }, "process_start"),
      'process_start: "command" must be a string (got 7); "args[1]" must be a string (got 2); ' +
        '"env.A" must be a string (got true); a name in "env" ("B\\u0000") must not contain NUL ' +
        'characters; "pty" must be true or false (got a string); "cols" must be at most 1000 ' +
        '(got 1e+300); "wait" must be "ready", "exit" or "none" (got "redy")',
    );
    assertEquals(
      await refused(portal, "process_write", { id: 1.5, content: "x" }, "id"),
      'process_write: "id" must be an integer (got 1.5)',
    );
  },
);

portalTest("bad input: the values themselves (patterns, signals, ids, sizes)", async (portal) => {
  const id = await portal.spawn("cat");
  const fail = (tool: string, args: Json, names: string) => refused(portal, tool, args, names);
  // Patterns: a clear reason, the pattern quoted by its first characters.
  for (const tool of ["process_write", "process_read_new"]) {
    assertMatch(
      await fail(
        tool,
        { id, content: tool === "process_write" ? "x" : undefined, expect: "(" },
        "expect",
      ),
      /expect "\(" is not a valid regular expression: missing closing \)\. Portal matches with RE2/,
    );
  }
  const long = `(${"a".repeat(4000)}`;
  const message = await fail("process_start", { command: "cat", prompt: long }, "prompt");
  assertMatch(message, new RegExp(`prompt "\\(a{${QUOTED_CHARS - 1}}"… \\(4001 characters\\)`));
  // Signals by name and number.
  for (const signal of ["SIGBOGUS", "SIGRTMIN+99", "KILL ME", "0", 0, 65, 999, -9, 1e10]) {
    await fail("process_signal", { id, signal }, "signal");
  }
  // Sizes: 0 and 100000 where the bounds refuse them; the ones they allow work.
  await fail("process_start", { command: "cat", pty: true, cols: 0 }, "cols");
  await fail("process_start", { command: "cat", pty: true, rows: 100_000 }, "rows");
  await fail("process_read", { id, max_chars: 0 }, "max_chars");
  await fail("process_read_new", { id, quiet_ms: 100_000 }, "quiet_ms");
  assertEquals((await portal.call("process_read", { id, max_chars: 100_000 })).records, []);
  // 10 MB of content, a 9 MiB command: short errors.
  await fail("process_write", { id, content: "y".repeat(10_000_000) }, "content");
  await fail("process_start", { command: "z".repeat(9 << 20) }, "command");
  // Ids that were cleaned up, for every tool that takes one.
  const gone = await portal.spawn("true");
  await portal.waitExit(gone);
  await portal.call("process_cleanup", { id: gone });
  for (const [tool, extra] of ID_TOOLS) {
    assertMatch(await fail(tool, { id: gone, ...extra }, String(gone)), /was cleaned up/);
  }
  // An unknown tool, named with a megabyte: Invalid params, its name quoted by a prefix.
  const text = await portal.invalid("t".repeat(1 << 20), {});
  assert(text.length <= ERROR_MAX_CHARS, `${text.length} characters`);
  assertMatch(
    text,
    new RegExp(`^Unknown tool "t{${QUOTED_CHARS}}"… \\(1048576 characters\\); Portal's tools: `),
  );
  // And the server serves on.
  await portal.call("process_write", { id, content: "still here\n", wait: "none" });
  await portal.readUntil(id, (t) => t.includes("still here"));
});

posixTest(
  "an 11 MiB request is answered with an error; the server serves on and still stops when stdin closes",
  async () => {
    const portal = await Portal.start({ captureStderr: true });
    const server = portal.transport.pid!;
    try {
      const id = await portal.spawn("cat");
      const error = await portal.client.callTool({
        name: "process_write",
        arguments: { id, content: "q".repeat(11 << 20) },
      }).then(() => null, (e: unknown) => e);
      assert(error instanceof McpError, String(error));
      assertMatch(error.message, /A message of \d+ bytes is larger than Portal reads \(10485760/);
      assertMatch(portal.stderr, /A message of \d+ bytes is larger than Portal reads/);
      // Later calls are answered, on the same connection.
      await portal.call("process_write", { id, content: "after\n", wait: "none" });
      await portal.readUntil(id, (t) => t.includes("after"));
      assertEquals((await portal.call("process_list")).processes.length, 1);
    } finally {
      await portal.close();
    }
    await waitFor("the server to exit once its stdin closed", () => !pidAlive(server));
  },
);

/**
 * `call`, with process_list asked over and over while it runs: how long it
 * took, how many process_list calls were answered meanwhile, and the slowest.
 */
async function meanwhile(portal: Portal, call: () => Promise<Json>) {
  let stop = false;
  let answered = 0;
  let slowest = 0;
  const others = (async () => {
    while (!stop) {
      const asked = performance.now();
      await portal.call("process_list");
      slowest = Math.max(slowest, performance.now() - asked);
      answered++;
    }
  })();
  const started = performance.now();
  try {
    const reply = await call();
    return { reply, took: performance.now() - started, answered, slowest };
  } finally {
    stop = true;
    await others;
  }
}

// JavaScript's engine backtracks on these for minutes or for ever (the server froze at 100% CPU,
// deaf to every call and to SIGTERM); RE2 runs each search in bounded time.
const REDOS: { expect: string; content: string }[] = [
  { expect: "(a+)+$", content: "a".repeat(40) + "b\n" },
  { expect: "(a|a)+$", content: "a".repeat(5000) + "b\n" },
  { expect: "(.*a){20}", content: ("a".repeat(19) + "\n").repeat(2000) },
  // Nested quantifiers on long output: 60,000 characters in one line.
  { expect: "^(\\w+\\s?)+$", content: "word ".repeat(12_000) + "!\n" },
];

portalTest(
  "ReDoS: no expect holds the server: wait_ms is kept, and other calls are answered meanwhile",
  async (portal) => {
    // Long enough for several calls meanwhile; each call asked meanwhile costs CPU of its own.
    const waitMs = 500;
    for (const { expect, content } of REDOS) {
      const id = await portal.spawn("cat");
      const { reply, took, answered, slowest } = await meanwhile(
        portal,
        () => portal.call("process_write", { id, content, expect, wait: "exit", wait_ms: waitMs }),
      );
      const what = `${expect}: ${reply.reason} after ${took.toFixed(0)} ms, ${answered} ` +
        `process_list answered meanwhile, the slowest in ${slowest.toFixed(0)} ms`;
      assertEquals(reply.reason, "timeout", what);
      // Bounds that only a held server misses, even on a machine starved of CPU: JavaScript's
      // engine took minutes or for ever on each, answering nothing meanwhile (bench/patterns.ts
      // measures the real figures: wait_ms overshot by ~10 ms, process_list p99 under 10 ms).
      assert(took < waitMs + 20_000, what);
      assert(answered >= 2, what);
      await portal.call("process_kill", { id });
    }
  },
);

portalTest(
  "ReDoS: a prompt is tested on every check without holding the server, and still ends waits",
  async (portal) => {
    const id = await portal.spawn("cat", [], { prompt: "^(a|a)+$" });
    const { reply, answered, slowest } = await meanwhile(
      portal,
      () => portal.call("process_write", { id, content: "a".repeat(5000) + "b", wait_ms: 500 }),
    );
    const what = `${reply.reason}, ${answered} answered meanwhile, slowest ${slowest} ms`;
    assertEquals(reply.reason, "timeout", what);
    assert(answered >= 2, what);
    const ready = await portal.call("process_write", { id, content: "\naaa" });
    assertEquals([ready.reason, ready.state], ["ready", "waiting_for_input"]);
  },
);
