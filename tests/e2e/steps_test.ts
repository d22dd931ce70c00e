/**
 * One call per step: process_write returns once the program waits for input
 * again, with its answer, for REPLs and debuggers on a PTY and on pipes.
 */
import { bashStart, type Json, type Portal } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { sharedPortal } from "../helpers/portal.ts";

// Each test asserts only about its own processes: one server serves them all.
const { linuxTest } = sharedPortal();

/** Starts a program and waits for its first prompt; returns the reply. */
async function startReady(
  portal: Portal,
  command: string,
  args: string[],
  extra: Record<string, unknown> = {},
): Promise<Json> {
  const started = await portal.call("process_start", { command, args, wait: "ready", ...extra });
  assertEquals([started.reason, started.state], ["ready", "waiting_for_input"], command);
  return started;
}

/** One step: writes `content`, and checks the call waited until the program waits for input. */
async function step(portal: Portal, id: number, content: string): Promise<string> {
  const reply = await portal.call("process_write", { id, content });
  assertEquals([reply.reason, reply.state], ["ready", "waiting_for_input"], content);
  return reply.output;
}

linuxTest("python3 on a PTY: the banner, then each step's answer and prompt", async (portal) => {
  const { id, output } = await startReady(portal, "python3", ["-q"], { pty: true });
  assertEquals(output, ">>> ");
  // The terminal's echo of the line typed is left out of output, and counted.
  const answer = await portal.call("process_write", { id, content: "6 * 7\n" });
  assertEquals([answer.output, answer.echo_chars], ["42\n>>> ", 6]);
  // What the program drew besides the echo (its continuation prompts) stays.
  assertEquals(
    await step(portal, id, "def twice(x):\n    return 2 * x\n\n"),
    "...     return 2 * x\n... \n>>> ",
  );
  assertEquals(await step(portal, id, "twice(21)\n"), "42\n>>> ");
  // The records keep the echo.
  const window = await portal.call("process_read", { id, duration: 60, unit: "s" });
  assertStringIncludes(
    window.records.map((r: { content: string }) => r.content).join(""),
    "6 * 7\n42",
  );
  // The output a write returned counts as read: nothing is left for process_read_new.
  const rest = await portal.call("process_read_new", { id });
  assertEquals([rest.records, rest.state, rest.reason], [[], "waiting_for_input", "none"]);
});

linuxTest("python3 on pipes: stdin read by the program is the signal", async (portal) => {
  const { id, output } = await startReady(portal, "python3", ["-i", "-q"]);
  assertEquals(output, ">>> ");
  // stdout ("42") and stderr (the prompt) are two pipes: their order in one text may vary.
  const answer = await step(portal, id, "6 * 7\n");
  assertEquals(answer.replace(">>> ", ""), "42\n");
  assertStringIncludes(answer, ">>> ");
  const sum = await step(portal, id, "print(sum(range(10)))\n");
  assertEquals(sum.replace(">>> ", ""), "45\n");
});

linuxTest("bash: commands, a multi-line answer, and the prompt after each", async (portal) => {
  const bash = bashStart();
  const { id } = await startReady(portal, bash.command, bash.args, bash);
  assertEquals(await step(portal, id, "echo $((6 * 7))\n"), "42\nREADY$ ");
  assertEquals(await step(portal, id, "printf 'a\\nb\\n'\n"), "a\nb\nREADY$ ");
  assertEquals(await step(portal, id, "cd /; pwd\n"), "/\nREADY$ ");
});

linuxTest("sqlite3: statements answered, one call each", async (portal) => {
  const { id, output } = await startReady(portal, "sqlite3", [], { pty: true });
  assertMatch(output, /SQLite version[^]*sqlite> $/);
  assertEquals(
    await step(portal, id, "create table t(x); insert into t values (1), (2), (3);\n"),
    "sqlite> ",
  );
  assertEquals(await step(portal, id, "select sum(x) * 7 from t;\n"), "42\nsqlite> ");
});

linuxTest(
  "gdb debugs a C program: break, run, print, a y/n question, continue",
  async (portal) => {
    await using dir = await tempDir();
    await Deno.writeTextFile(
      `${dir.path}/prog.c`,
      "#include <stdio.h>\n" +
        "int square(int x) { return x * x; }\n" +
        "int main(void) {\n" +
        "  int total = 0;\n" +
        "  for (int i = 1; i <= 3; i++) total += square(i);\n" +
        '  printf("total=%d\\n", total);\n' +
        "  return 0;\n" +
        "}\n",
    );
    const cc = await new Deno.Command("gcc", {
      args: ["-g", "-O0", "-o", `${dir.path}/prog`, `${dir.path}/prog.c`],
    }).output();
    assert(cc.success, new TextDecoder().decode(cc.stderr));
    const { id, output } = await startReady(
      portal,
      "gdb",
      ["-q", "-nx", "-iex", "set debuginfod enabled off", `${dir.path}/prog`],
      { pty: true },
    );
    assertMatch(output, /\(gdb\) $/);
    assertMatch(
      await step(portal, id, "break square\n"),
      /Breakpoint 1 at .*prog\.c, line 2\.\n\(gdb\) $/,
    );
    // The program runs under gdb, stops at the breakpoint, and gdb reads its terminal again.
    assertMatch(await step(portal, id, "run\n"), /Breakpoint 1, square \(x=1\) at [^]*\(gdb\) $/);
    assertEquals(await step(portal, id, "print x * 10\n"), "$1 = 10\n(gdb) ");
    // A question waits for input like a prompt does: the next line answers it.
    assertEquals(await step(portal, id, "delete\n"), "Delete all breakpoints? (y or n) ");
    assertEquals(await step(portal, id, "y\n"), "(gdb) ");
    assertMatch(
      await step(portal, id, "continue\n"),
      /^Continuing\.\ntotal=14\n\[Inferior 1 \(process \d+\) exited normally\]\n\(gdb\) $/,
    );
  },
);

linuxTest(
  "input the program has not taken yet holds the reply, though it runs and waits on its terminal",
  async (portal) => {
    // The reader wakes every 5 ms in a wait on its terminal and takes its line 50 ms
    // late: having run since the write, it looked ready to a check of its run count alone,
    // and a settle of quiet output did not help (only the kernel's queues tell it).
    const script = new URL("../helpers/late_reader.py", import.meta.url).pathname;
    const { id } = await startReady(portal, "python3", [script], { pty: true });
    for (const word of ["one", "two", "three"]) {
      const reply = await portal.call("process_write", { id, content: `${word}\n` });
      // Not its state: a program that wakes every few milliseconds may be caught running.
      assertEquals([reply.reason, reply.output], ["ready", `got ${word}\n> `]);
    }
  },
);
