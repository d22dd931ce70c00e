/**
 * Keys by name, through full-screen programs whose replies are their
 * rendered screens.
 */
import { tempFile } from "../../dev/temp_dir.ts";
import { assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { sharedPortal } from "../helpers/portal.ts";

// Each test asserts only about its own processes: one server serves them all.
const { linuxTest } = sharedPortal();

linuxTest(
  "vim driven by key names: arrows in application mode, Escape, :wq Enter",
  async (portal) => {
    await using note = await tempFile("note.txt", "first line\n");
    const { file } = note;
    const opened = await portal.call("process_start", {
      command: "vim",
      // vim waits ttimeoutlen after an Escape for the rest of a key sequence; the reply comes
      // once it acted on the Escape (100 ms here, as defaults.vim sets it; 1 s without it).
      args: ["-u", "NONE", "-N", "-n", "--cmd", "set ttimeout ttimeoutlen=100", file],
      pty: true,
      wait: "ready",
    });
    const { id } = opened;
    // Full-screen: the reply is the rendered screen, with its cursor.
    assertEquals(opened.output.split("\n")[0], "first line");
    assertEquals(opened.cursor, { row: 0, col: 0 });
    const typed = await portal.call("process_write", {
      id,
      content: "osecond line",
      keys: ["Escape"],
    });
    assertEquals(typed.output.split("\n").slice(0, 2), ["first line", "second line"]);
    assertEquals([typed.state, typed.cursor.row], ["waiting_for_input", 1]);
    const up = await portal.call("process_write", { id, keys: ["Up"] });
    assertEquals(up.cursor.row, 0);
    // vim switched the keypad to application mode: Up went as ESC O A, not ESC [ A.
    const stdin = await portal.call("process_read", { id, source: "stdin", duration: 60_000 });
    assertEquals(stdin.records.at(-1).content, "\x1bOA");
    await portal.call("process_write", { id, content: "A!", keys: ["Escape"] });
    const saved = await portal.call("process_write", {
      id,
      content: ":wq",
      keys: ["Enter"],
      wait: "exit",
    });
    assertEquals([saved.reason, saved.exit_code], ["exit", 0]);
    assertEquals(await Deno.readTextFile(file), "first line!\nsecond line\n");
  },
);

linuxTest("less paged with PageDown, q quits", async (portal) => {
  await using note = await tempFile(
    "lines.txt",
    Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join("\n") + "\n",
  );
  const { file } = note;
  const first = await portal.call("process_start", {
    command: "less",
    args: [file],
    pty: true,
    rows: 10,
    env: { LESS: "", LESSHISTFILE: "-" },
    wait: "ready",
  });
  assertEquals(first.output.split("\n").slice(0, 9), [
    "line 1",
    "line 2",
    "line 3",
    "line 4",
    "line 5",
    "line 6",
    "line 7",
    "line 8",
    "line 9",
  ]);
  const paged = await portal.call("process_write", { id: first.id, keys: ["PageDown"] });
  assertEquals(paged.output.split("\n")[0], "line 10");
  const twice = await portal.call("process_write", {
    id: first.id,
    keys: ["PageDown", "PageDown"],
  });
  assertEquals(twice.output.split("\n")[0], "line 28");
  const quit = await portal.call("process_write", { id: first.id, keys: ["q"], wait: "exit" });
  assertEquals([quit.reason, quit.exit_code], ["exit", 0]);
});

linuxTest(
  "keys: a name that is no key is an error; on pipes Ctrl+C interrupts",
  async (portal) => {
    const { id } = await portal.call("process_start", {
      command: "python3",
      args: ["-i", "-q"],
      wait: "ready",
    });
    assertMatch(
      await portal.fail("process_write", { id, content: "1\n", keys: ["Enter", "Hello"] }),
      /Unknown key "Hello" in keys\. Keys are Enter, Tab/,
    );
    assertEquals((await portal.call("process_read", { id, source: "stdin" })).records, []);
    const busy = await portal.call("process_write", {
      id,
      // The empty line ends the compound statement, which then runs.
      content: "import time\nwhile True: print('tick', flush=True); time.sleep(0.05)\n\n",
      expect: "tick",
    });
    assertEquals(busy.reason, "expect");
    const stopped = await portal.call("process_write", { id, keys: ["Ctrl+C"] });
    assertEquals(stopped.state, "waiting_for_input");
    assertStringIncludes(stopped.output, "KeyboardInterrupt");
    // Enter on pipes is a newline, which the REPL reads as an empty line.
    const entered = await portal.call("process_write", { id, content: "6 * 7", keys: ["Enter"] });
    assertStringIncludes(entered.output, "42\n");
  },
);
