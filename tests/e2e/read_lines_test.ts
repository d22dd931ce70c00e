/**
 * process_read by lines: a pattern searched over everything a process's
 * records hold, each match with its line number and context, and then the
 * lines around one of them (issue 40: a build of 50,000 lines whose one error
 * is in the middle, found in one call, its surroundings in a second).
 */
import { onPty, type Portal } from "../../dev/portal_client.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { sharedPortal } from "../helpers/portal.ts";

// Each test asserts only about its own processes: one server serves them all.
const { portalTest } = sharedPortal();

type Line = { line: number; text: string; match?: true };

/** A build that prints `lines` lines, one of them (number `at`) an error in red. */
const BUILD = (lines: number, at: number) =>
  `import sys\nfor i in range(1, ${lines + 1}):\n` +
  `    if i == ${at}: print("src/parser.c:41:7: \\x1b[31merror:\\x1b[0m 'count' undeclared")\n` +
  `    else: print(f"[{i}/${lines}] CC build/obj/unit_{i}.o")\n` +
  `sys.stdout.flush()`;

/** Runs the build on a PTY or pipes and waits for its end; its id. */
async function build(portal: Portal, pty: boolean): Promise<number> {
  const args = ["-c", BUILD(50_000, 25_000)];
  const start = pty ? onPty("python3", args, { wait: "exit" }) : {
    command: "python3",
    args,
    wait: "exit",
  };
  const reply = await portal.call("process_start", { ...start, wait_ms: 60_000 });
  assertEquals(reply.reason, "exit");
  // The reply keeps the head and the tail: the error in the middle is not in it.
  assert(!reply.output.includes("undeclared"), "the step's output left the middle out");
  return reply.id;
}

for (const pty of [true, false]) {
  portalTest(
    `a build's one error in 50,000 lines: found with its number, then its surroundings (${
      pty ? "PTY" : "pipes"
    })`,
    async (portal) => {
      const id = await build(portal, pty);
      const found = await portal.client.callTool({
        name: "process_read",
        arguments: { id, pattern: "error: '(\\w+)' undeclared" },
      });
      const reply = found.structuredContent as {
        lines: Line[];
        matches: number;
        total_lines: number;
        truncated: boolean;
      };
      assertEquals([reply.matches, reply.total_lines, reply.truncated], [1, 50_000, false]);
      // The match, its color gone, with 3 lines before and after (the default context).
      assertEquals(reply.lines.map((l) => l.line), [
        24997,
        24998,
        24999,
        25000,
        25001,
        25002,
        25003,
      ]);
      assertEquals(reply.lines[3], {
        line: 25000,
        text: "src/parser.c:41:7: error: 'count' undeclared",
        match: true,
      });
      assertEquals(reply.lines[0].text, "[24997/50000] CC build/obj/unit_24997.o");
      const text = (found.content as { text: string }[])[0].text;
      assert(text.length < 2000, `${text.length} characters: ${text}`);

      // The second call: the lines around it, by its number.
      const around = await portal.call("process_read", { id, line: 25000, context: 10 });
      const lines: Line[] = around.lines;
      assertEquals(lines.length, 21);
      assertEquals(lines.map((l) => l.line), Array.from({ length: 21 }, (_, i) => 24990 + i));
      assertEquals(lines[10].text, "src/parser.c:41:7: error: 'count' undeclared");
      assertEquals(lines[20].text, "[25010/50000] CC build/obj/unit_25010.o");
      assertEquals(around.truncated, false);
      await portal.call("process_cleanup", { id });
    },
  );
}

portalTest("a search counts every match and shows what max_chars holds", async (portal) => {
  const id = await portal.spawn("python3", [
    "-c",
    "for i in range(1, 1001): print(('warning %d' if i % 10 == 0 else 'ok %d') % i)",
  ], { wait: "exit" });
  const reply = await portal.call("process_read", {
    id,
    pattern: "^warning",
    context: 0,
    max_chars: 50,
  });
  assertEquals(reply.matches, 100);
  assertEquals(reply.truncated, true);
  // "warning 10" .. : as many whole lines as 50 characters hold.
  assertEquals(reply.lines.map((l: Line) => l.line), [10, 20, 30, 40, 50]);
  assert(reply.lines.every((l: Line) => l.match === true));
  // Neighbouring matches share their context: each line once.
  const close = await portal.call("process_read", { id, pattern: "^warning [12]0$", context: 9 });
  assertEquals(close.lines.map((l: Line) => l.line), Array.from({ length: 29 }, (_, i) => i + 1));
  assertEquals(close.lines.filter((l: Line) => l.match).map((l: Line) => l.line), [10, 20]);
  // A window: only the lines of records in its time count (none in the last nanosecond).
  const recent = await portal.call("process_read", {
    id,
    pattern: "^warning",
    duration: 1,
    unit: "ns",
  });
  assertEquals([recent.matches, recent.lines], [0, []]);
  await portal.call("process_cleanup", { id });
});

portalTest("process_read by lines says what to do instead of what it cannot do", async (portal) => {
  const id = await portal.spawn("sh", ["-c", "echo one; echo two"], { wait: "exit" });
  const refusal = async (args: Record<string, unknown>) =>
    await portal.fail("process_read", { id, ...args });
  assertMatch(
    await refusal({ pattern: "o", line: 1 }),
    /not both: search first, then call again with line/,
  );
  assertMatch(await refusal({ context: 2 }), /context goes with pattern or line/);
  assertMatch(await refusal({ pattern: "o", encoding: "base64" }), /leave encoding out/);
  assertMatch(await refusal({ line: 1, duration: 5 }), /leave duration out/);
  assertEquals(
    await refusal({ line: 3 }),
    "process_read: line 3 is past the end: the stored output has 2 lines.",
  );
  const backreference = await refusal({ pattern: "(o)\\1" });
  assertStringIncludes(backreference, 'pattern "(o)\\\\1" cannot be used: ');
  assertStringIncludes(backreference, "backreference");
  await portal.call("process_cleanup", { id });
});
