import { BASH_PROMPT, type Json, Portal, type Rec } from "../../dev/portal_client.ts";
import { tempFile } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { sharedPortal } from "../helpers/portal.ts";
import { pidAlive, waitForeground } from "../helpers/processes.ts";

// Each test asserts only about its own processes: one server serves them all.
const { portalTest } = sharedPortal();

const screenText = (screen: Json) => screen.lines.join("\n");

portalTest("pty: the program sees a terminal (isatty, /dev/pts, TERM, size)", async (portal) => {
  const id = await portal.spawn("python3", [
    "-c",
    "import os,sys,shutil;print(os.isatty(0),os.isatty(1),os.ttyname(0),os.environ['TERM'],shutil.get_terminal_size())",
  ], { pty: true });
  const info = await portal.waitExit(id);
  const out = (await portal.call("process_read", { id, duration: 60, unit: "s" })).records
    .map((r: Rec) => r.content).join("");
  assertMatch(
    out,
    /^True True \/dev\/(pts\/\d+|ttys\d+) xterm-256color os.terminal_size\(columns=80, lines=24\)\n$/,
  );
  assertEquals([info.status, info.exit_code, info.pty, info.cols, info.rows], [
    "exited",
    0,
    true,
    80,
    24,
  ]);
  // The caller's TERM wins over the default.
  const vt = await portal.spawn("sh", ["-c", 'echo "term=$TERM"'], {
    pty: true,
    env: { TERM: "vt100" },
  });
  assertEquals(await portal.readUntil(vt, (t) => t.endsWith("\n")), "term=vt100\n");
});

portalTest(
  "pty records: stdout and stderr merged, CR removed, ANSI stripped, echo and stdin",
  async (portal) => {
    const id = await portal.spawn("sh", [
      "-c",
      "read line; printf '\\033[32mout:%s\\033[0m\\r\\n' \"$line\"; echo err >&2",
    ], { pty: true, env: { TERM: "dumb" } });
    await portal.call("process_write", { id, content: "typed\n", wait: "none" });
    const info = await portal.waitExit(id);
    const { records } = await portal.call("process_read", {
      id,
      source: "both",
      duration: 60,
      unit: "s",
    });
    assertEquals(records.map((r: Rec) => r.source).every((s: string) => s === "stdout"), true);
    assertEquals(records.map((r: Rec) => r.content).join(""), "typed\nout:typed\nerr\n");
    const stdin = await portal.call("process_read", {
      id,
      source: "stdin",
      duration: 60,
      unit: "s",
    });
    // Typed: the line end went as the Enter key, `\r`, which the terminal made `\n`.
    assertEquals(stdin.records.map((r: Rec) => r.content), ["typed\r"]);
    assertEquals(info.stderr_count, 0);
    assertEquals(info.stdin_count, 1);
  },
);

/**
 * One line of Python that loops forever and says once that it is looping. Its
 * echo holds `'busy-' + 'loop'`, only its output holds "busy-loop": seeing that
 * text means the loop runs, so a ^C sent then interrupts the loop, not the REPL
 * still reading the line (which prints no traceback).
 */
const BUSY_LOOP =
  "for i in itertools.count(): print('busy-' + 'loop') if i == 0 else time.sleep(0.01)\n\n";

portalTest(
  "pty: a python3 REPL computes, ^C interrupts a busy loop, the REPL lives on",
  async (portal) => {
    const prompt = (t: string) => t.endsWith(">>> ");
    const id = await portal.spawn("python3", ["-q"], { pty: true });
    await portal.readUntil(id, prompt);
    await portal.call("process_write", { id, content: "6 * 7\n", wait: "none" });
    assertStringIncludes(await portal.readUntil(id, prompt), "42\n");
    await portal.call("process_write", { id, content: "import itertools, time\n", wait: "none" });
    await portal.readUntil(id, prompt);
    const interrupts = [
      () => portal.call("process_write", { id, content: "\u0003", wait: "none" }),
      // CTRL_C_EVENT through process_signal types ^C too.
      async () => {
        const sent = await portal.call("process_signal", { id, signal: "CTRL_C_EVENT" });
        assertEquals(sent.delivered_to, "terminal input (^C)");
      },
    ];
    for (const interrupt of interrupts) {
      await portal.call("process_write", { id, content: BUSY_LOOP, wait: "none" });
      await portal.readUntil(id, (t) => t.includes("busy-loop\n"));
      await interrupt();
      assertMatch(await portal.readUntil(id, prompt), /Traceback[^]*KeyboardInterrupt/);
    }
    await portal.call("process_write", { id, content: "print('alive')\n", wait: "none" });
    assertStringIncludes(await portal.readUntil(id, prompt), "alive\n");
    assertEquals((await portal.call("process_inspect", { id })).status, "running");
  },
);

portalTest(
  "pty: bash job control: ^Z, fg, ^C, and SIGINT hits the job, not the shell",
  async (portal) => {
    const prompt = (t: string) => t.endsWith(BASH_PROMPT);
    const { id, os_pid: bash } = await portal.startBash();
    // Each key or signal waits for sleep to own the terminal: bash echoes the line
    // (and `fg` prints the job) before the job has the terminal.
    await portal.call("process_write", { id, content: "sleep 100\n", wait: "none" });
    await waitForeground(bash, "sleep");
    await portal.call("process_write", { id, content: "\u001a", wait: "none" });
    assertMatch(await portal.readUntil(id, prompt), /Stopped\s+sleep 100/);
    await portal.call("process_write", { id, content: "fg\n", wait: "none" });
    await waitForeground(bash, "sleep");
    await portal.call("process_write", { id, content: "\u0003", wait: "none" });
    await portal.readUntil(id, prompt);
    await portal.call("process_write", { id, content: "echo status=$?\n", wait: "none" });
    assertStringIncludes(await portal.readUntil(id, prompt), "status=130");

    await portal.call("process_write", { id, content: "sleep 100\n", wait: "none" });
    await waitForeground(bash, "sleep");
    const sent = await portal.call("process_signal", { id, signal: "SIGINT" });
    assertEquals(sent.delivered_to, "foreground process group of the terminal");
    await portal.readUntil(id, prompt);
    await portal.call("process_write", {
      id,
      content: "echo status=$?; echo still-here\n",
      wait: "none",
    });
    const after = await portal.readUntil(id, (t) => t.includes("still-here\n") && prompt(t));
    assertStringIncludes(after, "status=130");
    assertEquals((await portal.call("process_inspect", { id })).status, "running");
  },
);

portalTest(
  "pty: vim edits a file and :wq writes it; the screen is the alternate buffer",
  async (portal) => {
    await using note = await tempFile("note.txt", "first line\n");
    const { file } = note;
    const id = await portal.spawn("vim", ["-u", "NONE", "-N", "-n", file], { pty: true });
    const opened = await portal.screenUntil(id, (s) => screenText(s).includes("first line"));
    assertEquals(opened.active_buffer, "alternate");
    assertEquals(opened.buffer, "alternate");
    assertEquals(opened.lines[0], "first line");
    await portal.call("process_write", { id, content: "Go", wait: "none" });
    await portal.call("process_write", {
      id,
      content: "written by portal 漢字\u001b",
      wait: "none",
    });
    await portal.screenUntil(id, (s) => screenText(s).includes("written by portal 漢字"));
    await portal.call("process_write", { id, content: ":wq\r", wait: "none" });
    const info = await portal.waitExit(id);
    assertEquals(info.exit_code, 0);
    assertEquals(await Deno.readTextFile(file), "first line\nwritten by portal 漢字\n");
    const after = await portal.call("process_screen", { id });
    assertEquals(after.active_buffer, "primary");
  },
);

portalTest(
  "pty: less pages through a file, q quits, the screen stays readable after exit",
  async (portal) => {
    await using note = await tempFile(
      "long.txt",
      Array.from({ length: 200 }, (_, i) => `row ${i + 1}`).join("\n") + "\n",
    );
    const { file } = note;
    const id = await portal.spawn("less", [file], { pty: true, env: { LESS: "" } });
    const first = await portal.screenUntil(id, (s) => s.lines.includes("row 23"));
    assertEquals(first.lines[0], "row 1");
    assert(!first.lines.includes("row 24"));
    await portal.call("process_write", { id, content: " ", wait: "none" });
    const second = await portal.screenUntil(id, (s) => s.lines.includes("row 24"));
    assert(!second.lines.includes("row 1"));
    await portal.call("process_write", { id, content: "q", wait: "none" });
    const info = await portal.waitExit(id);
    assertEquals([info.status, info.exit_code], ["exited", 0]);
    const last = await portal.call("process_screen", { id });
    assertEquals(last.rows, 24);
  },
);

/**
 * Prints `lines` lines, then asks the terminal where its cursor is (CSI 6n) in
 * raw mode and prints the reply: only an emulator that has parsed everything
 * before the question can answer it right.
 */
const askCursor = (lines: number) => [
  "-c",
  `import os, sys, termios, tty
for i in range(${lines}): print("line", i)
sys.stdout.flush()
old = termios.tcgetattr(0)
tty.setraw(0)
os.write(1, b"abc\\x1b[6n")
reply = b""
while not reply.endswith(b"R"): reply += os.read(0, 1)
termios.tcsetattr(0, termios.TCSADRAIN, old)
print("\\nreply=" + repr(reply))`,
];

portalTest(
  "pty: the terminal answers a cursor-position query, after output it had not parsed",
  async (portal) => {
    for (const [lines, row] of [[0, 1], [5000, 24]]) {
      const id = await portal.spawn("python3", askCursor(lines), { pty: true });
      const text = await portal.readUntil(id, (t) => /reply=.*\n/.test(t), { timeoutMs: 30_000 });
      assertEquals(text.slice(text.indexOf("reply=")), `reply=b'\\x1b[${row};4R'\n`);
    }
  },
);

portalTest("pty: top draws its header", async (portal) => {
  const id = await portal.spawn("top", [], { pty: true });
  // procps top on Linux, BSD top on macOS.
  const header = Deno.build.os === "linux"
    ? /^top - [^]*Tasks:[^]*PID\s+USER/
    : /Processes:[^]*PID/;
  await portal.screenUntil(id, (s) => header.test(screenText(s)));
  await portal.call("process_write", { id, content: "q", wait: "none" });
  assertEquals((await portal.waitExit(id)).exit_code, 0);
});

portalTest("pty: process_screen resizes the terminal; stty size follows", async (portal) => {
  const id = await portal.spawn("sh", ["-c", "stty size; read x; stty size; read x"], {
    pty: true,
    cols: 100,
    rows: 30,
  });
  await portal.readUntil(id, (t) => t.includes("30 100\n"));
  const resized = await portal.call("process_screen", { id, cols: 120, rows: 40 });
  assertEquals([resized.cols, resized.rows], [120, 40]);
  await portal.call("process_write", { id, content: "\n", wait: "none" });
  await portal.readUntil(id, (t) => t.includes("40 120\n"));
  const info = await portal.call("process_inspect", { id });
  assertEquals([info.cols, info.rows], [120, 40]);
});

portalTest("pty screen: wide characters, title, scrollback, buffer choice", async (portal) => {
  const id = await portal.spawn("sh", [
    "-c",
    "printf '\\033]2;my title\\007'; for i in $(seq 1 40); do echo line$i; done; echo '漢字 😀 end'; " +
    "read x; printf '\\033[?1049h\\033[HALT SCREEN'; read x",
  ], { pty: true });
  const screen = await portal.screenUntil(id, (s) => screenText(s).includes("end"));
  assertEquals(screen.title, "my title");
  // The cursor sits on the blank row below: blank rows at the bottom are left out.
  assertEquals(screen.lines.at(-1), "漢字 😀 end");
  assertEquals(screen.lines.length, 23);
  assertEquals(screen.cursor, { row: 23, col: 0 });
  assertEquals(screen.scrollback, undefined);
  const withBack = await portal.call("process_screen", { id, scrollback: 5 });
  assertEquals(withBack.scrollback, ["line14", "line15", "line16", "line17", "line18"]);
  assertEquals(withBack.lines[0], "line19");
  await portal.call("process_write", { id, content: "\n", wait: "none" });
  const alt = await portal.screenUntil(
    id,
    (s) => s.active_buffer === "alternate" && s.lines.length > 0,
  );
  assertEquals(alt.lines, ["ALT SCREEN"]);
  const primary = await portal.call("process_screen", { id, buffer: "primary" });
  assertEquals([primary.buffer, primary.active_buffer], ["primary", "alternate"]);
  assertStringIncludes(screenText(primary), "漢字 😀 end");
});

portalTest("pty kill ends the whole session: a background job of bash dies too", async (portal) => {
  const { id } = await portal.startBash();
  await portal.call("process_write", { id, content: "sleep 1000 &\n", wait: "none" });
  await portal.call("process_write", { id, content: "echo bg=$!\n", wait: "none" });
  const out = await portal.readUntil(id, (t) => /bg=\d+/.test(t) && t.endsWith(BASH_PROMPT));
  const job = Number(/bg=(\d+)/.exec(out)![1]);
  assert(pidAlive(job));
  const killed = await portal.call("process_kill", { id });
  assertEquals(killed.status, "killed");
  await waitFor("the background job to die with the session", () => !pidAlive(job));
});

portalTest("pty exit status: exit code, or the terminating signal", async (portal) => {
  const code = await portal.spawn("sh", ["-c", "exit 3"], { pty: true });
  const killed = await portal.spawn("sh", ["-c", "kill -TERM $$"], { pty: true });
  const a = await portal.waitExit(code);
  const b = await portal.waitExit(killed);
  assertEquals([a.exit_code, a.exit_signal], [3, null]);
  assertEquals([b.exit_code, b.exit_signal], [null, "SIGTERM"]);
  const { processes } = await portal.call("process_list");
  const ours = processes.filter((p: Json) => p.id === code || p.id === killed);
  assertEquals(ours.map((p: Json) => p.status), ["exited", "exited"]);
});

portalTest(
  "pty errors: write after exit, absurd sizes, screen of a cleaned-up id",
  async (portal) => {
    const id = await portal.spawn("sh", ["-c", "read x"], { pty: true });
    assertMatch(await portal.fail("process_screen", { id, cols: 0 }), /cols/);
    assertMatch(await portal.fail("process_screen", { id, rows: 100000 }), /rows/);
    assertMatch(
      await portal.fail("process_start", { command: "sh", pty: true, rows: 5000 }),
      /rows/,
    );
    await portal.call("process_write", { id, content: "\n", wait: "none" });
    await portal.waitExit(id);
    assertMatch(await portal.fail("process_write", { id, content: "x" }), /it has exited/);
    assertMatch(
      await portal.fail("process_screen", { id, cols: 100 }),
      /can be read but not resized/,
    );
    await portal.call("process_screen", { id });
    await portal.call("process_cleanup", { id });
    assertMatch(
      await portal.fail("process_screen", { id }),
      /No process with id \d+ \(it was cleaned up/,
    );
    assertMatch(
      await portal.fail("process_start", { command: "no-such-program-xyz", pty: true }),
      /not found/i,
    );
  },
);

portalTest("pty: 50 terminals at once each echo their own input", async (portal) => {
  const ids: number[] = [];
  for (let i = 0; i < 50; i++) {
    ids.push(await portal.spawn("sh", ["-c", 'read x; echo "got:$x"'], { pty: true }));
  }
  await Promise.all(
    ids.map((id, i) => portal.call("process_write", { id, content: `token${i}\n`, wait: "none" })),
  );
  await Promise.all(ids.map(async (id, i) => {
    const out = await portal.readUntil(id, (t) => t.includes(`got:token${i}\n`), {
      timeoutMs: 30_000,
    });
    assertEquals(out, `token${i}\ngot:token${i}\n`);
  }));
  const processes = await waitFor(
    "all 50 to exit",
    async () =>
      (await portal.call("process_list")).processes.filter((p: Json) => ids.includes(p.id)),
    {
      until: (ours) => ours.every((p: Json) => p.status === "exited"),
      timeoutMs: 15_000,
    },
  );
  assertEquals(processes.length, 50);
});

Deno.test({
  name: "pty on Windows: a clear 'not yet supported' error",
  ignore: Deno.build.os !== "windows",
  fn: async () => {
    await using portal = await Portal.start();
    assertMatch(
      await portal.fail("process_start", { command: "cmd.exe", pty: true }),
      /not yet supported on Windows.*pty: false/,
    );
  },
});
