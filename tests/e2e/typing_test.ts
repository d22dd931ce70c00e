/**
 * Content is typed as a person types it: each line end is Enter, and each
 * next line goes once the program waits for input again; a bracketed paste
 * only when asked for (`paste: true`), where the program enabled it.
 */
import type { Portal, Rec } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { sharedPortal } from "../helpers/portal.ts";

// Each test asserts only about its own processes: one server serves them all.
const { linuxTest } = sharedPortal();

async function stdinRecords(portal: Portal, id: number): Promise<string[]> {
  const stdin = await portal.call("process_read", { id, source: "stdin", duration: 60_000 });
  return stdin.records.map((r: Rec) => r.content);
}

async function bash(portal: Portal): Promise<number> {
  return (await portal.startBash({ PS2: "MORE> " })).id;
}

linuxTest("sqlite3: a dot-command and a statement, typed, each line its own", async (portal) => {
  const { id } = await portal.call("process_start", {
    command: "sqlite3",
    pty: true,
    wait: "ready",
  });
  await portal.call("process_write", {
    id,
    content: "create table t(a, b); insert into t values (1, 'x'), (2, 'y');\n",
  });
  const boxed = await portal.call("process_write", {
    id,
    content: ".mode box\nselect * from t;\n",
  });
  // Pasted, sqlite3 took both lines for one dot-command: `extra argument: "*"`.
  assert(!boxed.output.includes("extra argument"), boxed.output);
  assertStringIncludes(boxed.output, "│ 2 │ y │");
  assertMatch(boxed.output, /sqlite> $/);
  assertEquals((await stdinRecords(portal, id)).slice(-2), [".mode box\r", "select * from t;\r"]);
});

linuxTest("vim: ihello, Enter, world, Escape inserts two lines, as typed", async (portal) => {
  await using dir = await tempDir();
  const file = `${dir.path}/notes.txt`;
  const { id } = await portal.call("process_start", {
    command: "vim",
    args: ["-u", "NONE", "-N", "-n", "--cmd", "set ttimeout ttimeoutlen=20", file],
    pty: true,
    wait: "ready",
  });
  const typed = await portal.call("process_write", {
    id,
    content: "ihello\rworld",
    keys: ["Escape"],
  });
  // Pasted, vim in normal mode inserted the text as it is, `i` included.
  assertEquals(typed.output.split("\n").slice(0, 2), ["hello", "world"]);
  const saved = await portal.call("process_write", {
    id,
    content: ":wq",
    keys: ["Enter"],
    wait: "exit",
  });
  assertEquals(saved.exit_code, 0);
  assertEquals(await Deno.readTextFile(file), "hello\nworld\n");
});

linuxTest("bash: a function typed line by line, then pasted when asked", async (portal) => {
  const id = await bash(portal);
  const typed = await portal.call("process_write", {
    id,
    content: 'greet() {\n  echo "hello $1"\n}\n',
  });
  assertEquals(typed.state, "waiting_for_input");
  assertEquals(typed.pasted, undefined);
  // Each line typed once bash asked for it: its continuation prompt, then the line's echo
  // (the first line's echo alone is exactly the input, and is left out).
  assertEquals(
    [typed.output, typed.echo_chars],
    ['MORE>   echo "hello $1"\nMORE> }\nREADY$ ', 10],
  );
  assertEquals(await stdinRecords(portal, id), ["greet() {\r", '  echo "hello $1"\r', "}\r"]);
  const pasted = await portal.call("process_write", {
    id,
    content: 'shout() {\n  echo "HELLO $1"\n}\n',
    paste: true,
  });
  assertEquals(pasted.pasted, true);
  assert(!pasted.output.includes("MORE> "), pasted.output);
  assertEquals(
    (await stdinRecords(portal, id)).at(-1),
    '\x1b[200~shout() {\r  echo "HELLO $1"\r}\x1b[201~\r',
  );
  const called = await portal.call("process_write", { id, content: "greet a; shout b\n" });
  assertEquals(called.output, "hello a\nHELLO b\nREADY$ ");
});

linuxTest(
  "paste where the program did not enable it: typed, and the reply says so",
  async (portal) => {
    const id = await portal.spawn("cat", [], { pty: true, wait: "ready" });
    const reply = await portal.call("process_write", { id, content: "one\ntwo\n", paste: true });
    assertEquals(reply.pasted, false);
    // cat reads lines in canonical mode: each typed line is echoed, then cat prints it. The
    // echo the output starts with is left out; from cat's first line on, all of it stays.
    assertEquals([reply.output, reply.echo_chars], ["one\ntwo\ntwo\n", 4]);
  },
);

linuxTest(
  "bash: a line for the program the line before started is typed once it reads",
  async (portal) => {
    await using dir = await tempDir();
    const id = await bash(portal);
    const reply = await portal.call("process_write", {
      id,
      content: `cat > ${dir.path}/note.txt\nwritten by cat\n`,
    });
    // Both lines echoed, nothing else printed: the output is the echo, left out.
    const typed = `cat > ${dir.path}/note.txt\nwritten by cat\n`;
    assertEquals([reply.output, reply.echo_chars], ["", typed.length]);
    const done = await portal.call("process_write", { id, keys: ["Ctrl+D"] });
    assertMatch(done.output, /READY\$ $/);
    assertEquals(await Deno.readTextFile(`${dir.path}/note.txt`), "written by cat\n");
  },
);
