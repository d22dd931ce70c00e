/**
 * Replies as a person would see them and a model should read them (issue
 * 16, items 3 to 5), with real programs on real terminals through the real
 * server: the text block is one bracketed line then the output as is, the
 * structured result keeps every field; output that redraws comes back as it
 * stands once drawn (a progress bar's last state, vim's status line on
 * `:wq`); a full-screen reply leaves out its empty rows; and the terminal's
 * echo of the typed lines is left out where it is exactly them, while the
 * records keep every byte.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Json, Portal, Rec } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { sharedPortal } from "../helpers/portal.ts";

// Each test reads only its own processes' replies: one server serves them all.
const { linuxTest } = sharedPortal();

/** A tool's result: its text block and its structured content. */
async function call(
  portal: Portal,
  name: string,
  args: Record<string, unknown>,
): Promise<{ text: string; data: Json }> {
  const result = await portal.client.callTool({ name, arguments: args }) as CallToolResult;
  assert(!result.isError, JSON.stringify(result.content));
  const [block] = result.content as { type: string; text: string }[];
  assertEquals(block.type, "text");
  return { text: block.text, data: result.structuredContent };
}

/** Everything the process wrote, as the records keep it (text). */
async function recorded(portal: Portal, id: number): Promise<string> {
  const page = await portal.call("process_read", { id, duration: 600_000, source: "stdout" });
  return page.records.map((r: Rec) => r.content).join("");
}

async function start(portal: Portal, command: string, args: string[] = []): Promise<number> {
  const { data } = await call(portal, "process_start", {
    command,
    args,
    pty: true,
    wait: "ready",
  });
  assertEquals(data.state, "waiting_for_input", command);
  return data.id;
}

linuxTest("a step's text is one short line, then the output as it is", async (portal) => {
  const { text, data } = await call(portal, "process_start", {
    command: "python3",
    args: ["-q"],
    pty: true,
    wait: "ready",
  });
  assertEquals(text, `[id ${data.id}, ready]\n>>> `);
  const id = data.id;
  const content = "print('a \"b\"\\n\\tc')\n";
  const step = await call(portal, "process_write", { id, content });
  // Not a JSON string: quotes, tabs and newlines as printed, the echo left out and counted.
  assertEquals(step.text, `[ready, echo -${content.length}]\na "b"\n\tc\n>>> `);
  assertEquals(step.data.output, 'a "b"\n\tc\n>>> ');
  assertEquals(
    [
      step.data.id,
      step.data.bytes_written,
      step.data.state,
      step.data.reason,
      step.data.echo_chars,
    ],
    [id, content.length, "waiting_for_input", "ready", content.length],
  );
  assert(step.text.length - step.data.output.length <= 30, step.text);
  // The records keep the echo.
  assertStringIncludes(await recorded(portal, id), 'print(\'a "b"\\n\\tc\')\na "b"');
  // A line ended by CRLF is one Enter: its echo is left out the same way.
  const crlf = await call(portal, "process_write", { id, content: "6 * 7\r\n" });
  assertEquals([crlf.data.output, crlf.data.echo_chars], ["42\n>>> ", 6]);
  // What the program adds to the lines typed (continuation prompts) stays.
  const block = await call(portal, "process_write", { id, content: "if 1:\n    2\n\n" });
  assertEquals(block.data.output, "...     2\n... \n2\n>>> ");
  // The end of a program: its exit code in the line.
  const quit = await call(portal, "process_write", { id, content: "exit(3)\n", wait: "exit" });
  assertEquals(quit.text, "[exited 3, echo -8]");
  // Listings stay JSON: data a program reads field by field.
  const list = await call(portal, "process_list", {});
  assertEquals(JSON.parse(list.text), list.data);
});

linuxTest("a password prompt: nothing is left out, the secret never shown", async (portal) => {
  const id = await start(portal, "python3", ["-q"]);
  const content = "import getpass; pw = getpass.getpass('Password: ')\n";
  const asked = await call(portal, "process_write", { id, content });
  assertEquals(asked.text, `[waiting_for_secret, echo -${content.length}]\nPassword: `);
  // Typed with echo off: no echo, so nothing to leave out.
  const answered = await call(portal, "process_write", { id, secret: "hunter2", keys: ["Enter"] });
  assertEquals([answered.data.output, answered.data.echo_chars], ["\n>>> ", undefined]);
  const typed = await call(portal, "process_write", { id, content: "len(pw)\n" });
  assertEquals(typed.text, "[ready, echo -8]\n7\n>>> ");
  assert(!(await recorded(portal, id)).includes("hunter2"));
});

linuxTest("sqlite3 and gdb: answers without the echo of the statements", async (portal) => {
  const sqlite = await start(portal, "sqlite3");
  const box = await call(portal, "process_write", {
    id: sqlite,
    content: ".mode box\nselect 1;\n",
  });
  // The first line's echo goes; the second comes after sqlite3's prompt, which stays with it.
  assertEquals(box.data.echo_chars, 10);
  assertMatch(box.data.output, /^sqlite> select 1;\n┌───┐\n│ 1 │\n├───┤\n│ 1 │\n└───┘\nsqlite> $/);
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/p.c`, "int main(void) { return 0; }\n");
  const cc = await new Deno.Command("gcc", {
    args: ["-g", "-o", `${dir.path}/p`, `${dir.path}/p.c`],
  }).output();
  assert(cc.success);
  const gdb = await start(portal, "gdb", ["-q", "-nx", "-iex", "set debuginfod enabled off"]);
  const print = await call(portal, "process_write", { id: gdb, content: "print 6 * 7\n" });
  assertEquals(print.text, "[ready, echo -12]\n$1 = 42\n(gdb) ");
});

linuxTest("a progress bar that redraws comes back as its last state", async (portal) => {
  const id = await start(portal, "python3", ["-q"]);
  const bar = await call(portal, "process_write", {
    id,
    content: "import time\nfor i in range(5): print(f'\\r{i * 25}% ' + '#' * i, end='', " +
      "flush=True); time.sleep(0.02)\n\nprint('\\rdone' + ' ' * 10)\n",
  });
  assertStringIncludes(bar.data.output, "\ndone\n>>> ");
  assert(!bar.data.output.includes("25%"), bar.data.output);
  // The records keep every state it went through.
  const records = await recorded(portal, id);
  for (const state of ["0% ", "25% #", "50% ##", "75% ###", "100% ####"]) {
    assertStringIncludes(records, state);
  }
  // A wide character takes two cells: two steps left from after 漢字 is where 字 starts.
  const wide = await call(portal, "process_write", { id, content: "print('漢字\\x1b[2Dx')\n" });
  assertEquals(wide.data.output, "漢x\n>>> ");
  // A line longer than the terminal wraps, and is still one line, its echo left out.
  const long = "x".repeat(120);
  const echoed = await call(portal, "process_write", { id, content: `print('${long}')\n` });
  assertEquals([echoed.data.output, echoed.data.echo_chars], [`${long}\n>>> `, 130]);
});

linuxTest("vim: :wq gives the status line a person sees; screens leave out empty rows", async (
  portal,
) => {
  await using dir = await tempDir();
  const file = `${dir.path}/notes.txt`;
  const { text: first, data: started } = await call(portal, "process_start", {
    command: "vim",
    args: ["-u", "NONE", "-N", "-n", file],
    pty: true,
    wait: "ready",
  });
  const id = started.id;
  // vim's column of ~ (and the empty line above it) is left out of the reply, and named.
  assertEquals(started.omitted_rows, { from: 0, to: 22 });
  assertMatch(first, /^\[id \d+, ready, screen, cursor 0:0, rows 0-22 empty\]\n"[^\n]*" \[New\]$/);
  const typed = await call(portal, "process_write", {
    id,
    content: "ihello\rworld",
    keys: ["Escape"],
  });
  assertEquals(typed.data.output.split("\n").slice(0, 2), ["hello", "world"]);
  assertEquals(typed.data.omitted_rows?.from, 2);
  for (const line of typed.data.output.split("\n")) assertEquals(line, line.trimEnd());
  // process_screen's text is its rows the same way; its lines stay whole for programs.
  const screen = await call(portal, "process_screen", { id });
  assertMatch(
    screen.text,
    /^\[alternate screen 80x24, cursor 1:4, rows 2-2\d empty\]\nhello\nworld/,
  );
  assertEquals(screen.data.lines.slice(0, 3), ["hello", "world", "~"]);
  const saved = await call(portal, "process_write", {
    id,
    content: ":wq",
    keys: ["Enter"],
    wait: "exit",
  });
  assertEquals(saved.data.exit_code, 0);
  assertMatch(saved.data.output, /^"[^"]*notes\.txt" \[New\] 2L, 12B written\n?$/);
  assertStringIncludes(await recorded(portal, id), ":wq");
  assertEquals(await Deno.readTextFile(file), "hello\nworld\n");
});

linuxTest("pipes have no echo: a program's own copy of a line stays", async (portal) => {
  const { data } = await call(portal, "process_start", { command: "cat", wait: "ready" });
  const copy = await call(portal, "process_write", { id: data.id, content: "same\n" });
  assertEquals([copy.data.output, copy.data.echo_chars], ["same\n", undefined]);
});
