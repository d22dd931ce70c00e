/**
 * What `state` and `reason` say, program by program: password prompts,
 * reads, busy jobs, stops, exits, bounds, patterns, never a reply cut
 * between two prints, and the fallback for relays that poll a socket or
 * the master of a terminal inside the terminal (script).
 */
import { onPty, type Portal } from "../../dev/portal_client.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { sharedPortal } from "../helpers/portal.ts";
import { waitForeground } from "../helpers/processes.ts";
import { waitFor } from "../../dev/wait.ts";

// Each test asserts only about its own processes: one server serves them all.
const { linuxTest, portalTest } = sharedPortal();

function bash(portal: Portal): Promise<number> {
  return portal.startBash().then((r) => r.id);
}

linuxTest(
  "getpass: waiting_for_secret (echo off), and the secret is not echoed",
  async (portal) => {
    const { id } = await portal.call("process_start", {
      command: "python3",
      args: ["-q"],
      pty: true,
      wait: "ready",
    });
    const asked = await portal.call("process_write", {
      id,
      content: "import getpass; pw = getpass.getpass('Password: ')\n",
    });
    assertEquals([asked.state, asked.reason], ["waiting_for_secret", "ready"]);
    assertMatch(asked.output, /Password: $/);
    const answered = await portal.call("process_write", { id, content: "hunter2\n" });
    assertEquals([answered.state, answered.output], ["waiting_for_input", "\n>>> "]);
    const length = await portal.call("process_write", { id, content: "len(pw)\n" });
    assertEquals([length.output, length.echo_chars], ["7\n>>> ", 8]);
  },
);

linuxTest(
  "bash: read x waits for input; sleep runs; ^Z brings the prompt back",
  async (portal) => {
    const id = await bash(portal);
    const read = await portal.call("process_write", { id, content: "read x\n" });
    assertEquals([read.state, read.reason, read.output, read.echo_chars], [
      "waiting_for_input",
      "ready",
      "",
      7,
    ]);
    const line = await portal.call("process_write", { id, content: "abc\n" });
    assertEquals(line.output, "READY$ ");
    // A line without its newline waits in the line discipline: the reader still waits for it.
    await portal.call("process_write", { id, content: "read y\n" });
    const partial = await portal.call("process_write", { id, content: "de" });
    assertEquals([partial.state, partial.reason, partial.output], [
      "waiting_for_input",
      "ready",
      "de",
    ]);
    assertEquals((await portal.call("process_write", { id, content: "f\n" })).output, "READY$ ");

    const busy = await portal.call("process_write", { id, content: "sleep 30\n", wait_ms: 300 });
    assertEquals([busy.state, busy.reason, busy.output], ["running", "timeout", ""]);
    assertEquals((await portal.call("process_inspect", { id })).state, "running");
    const stopped = await portal.call("process_write", { id, keys: ["Ctrl+Z"] });
    assertEquals([stopped.state, stopped.reason], ["waiting_for_input", "ready"]);
    assertMatch(stopped.output, /Stopped\s+sleep 30\nREADY\$ $/);
  },
);

linuxTest(
  "a program stopped by SIGSTOP is stopped; SIGCONT makes it wait again",
  async (portal) => {
    for (const pty of [true, false]) {
      const { id } = await portal.call("process_start", {
        command: "python3",
        args: ["-i", "-q"],
        pty,
        wait: "ready",
      });
      await portal.call("process_signal", { id, signal: "SIGSTOP" });
      const stopped = await portal.call("process_read_new", { id, wait: "ready" });
      assertEquals([stopped.state, stopped.reason], ["stopped", "ready"], `pty: ${pty}`);
      const listed = (await portal.call("process_list")).processes;
      assertEquals(listed.find((p: { id: number }) => p.id === id).state, "stopped");
      await portal.call("process_signal", { id, signal: "SIGCONT" });
      const again = await portal.call("process_write", { id, content: "1 + 1\n" });
      assertEquals(again.state, "waiting_for_input", `pty: ${pty}`);
      assertStringIncludes(again.output, "2\n");
    }
  },
);

// The pause is 3 times quiet_ms's default: longer than any silence that could end a wait.
linuxTest("print, pause 1 s, print: one reply holds both (PTY and pipes)", async (portal) => {
  const id = await bash(portal);
  const shell = await portal.call("process_write", {
    id,
    content: "echo first; sleep 1; echo second\n",
  });
  assertEquals(shell.output, "first\nsecond\nREADY$ ");
  const { id: py } = await portal.call("process_start", {
    command: "python3",
    args: ["-i", "-q"],
    wait: "ready",
  });
  const piped = await portal.call("process_write", {
    id: py,
    content: "import time; print('first', flush=True); time.sleep(1); print('second')\n",
  });
  assertEquals(piped.output.replace(">>> ", ""), "first\nsecond\n");
  assertEquals([piped.state, piped.reason], ["waiting_for_input", "ready"]);
});

linuxTest("expect ends a wait with its groups; exit and timeout are reasons", async (portal) => {
  const id = await bash(portal);
  const found = await portal.call("process_write", {
    id,
    content: "echo value=$((40 + 2)); sleep 30\n",
    expect: "value=(?<value>\\d+)",
  });
  assertEquals(found.reason, "expect");
  // The echo holds "value=$((40 + 2))": only the program's answer matches.
  assertEquals(found.match, { text: "value=42", groups: { 1: "42", value: "42" } });
  assertEquals(found.state, "running");
  // A ^C typed before sleep owns the terminal could reach bash's forked child before it
  // resets its handlers, and be lost.
  await waitForeground((await portal.call("process_inspect", { id })).os_pid, "sleep");
  const interrupted = await portal.call("process_write", { id, keys: ["Ctrl+C"] });
  assertMatch(interrupted.output, /\^C\nREADY\$ $/);

  const { id: sh } = await portal.call("process_start", {
    command: "sh",
    args: ["-c", "read x; echo got $x; exit 3"],
  });
  const exited = await portal.call("process_write", { id: sh, content: "hi\n" });
  assertEquals(
    [exited.reason, exited.state, exited.output, exited.exit_code, exited.exit_signal],
    ["exit", "exited", "got hi\n", 3, null],
  );

  const { id: sleeper } = await portal.call("process_start", { command: "sleep", args: ["30"] });
  const bounded = await portal.call("process_read_new", {
    id: sleeper,
    wait: "exit",
    wait_ms: 200,
  });
  assertEquals([bounded.reason, bounded.state, bounded.output], ["timeout", "running", ""]);
  const started = await portal.call("process_start", {
    command: "sh",
    args: ["-c", "echo bye; exit 5"],
    wait: "exit",
  });
  assertEquals([started.reason, started.output, started.exit_code], ["exit", "bye\n", 5]);
});

portalTest(
  "a bad expect or prompt pattern is a tool error, and nothing is sent",
  async (portal) => {
    const id = await bash(portal);
    assertMatch(
      await portal.fail("process_write", { id, content: "echo sent\n", expect: "(" }),
      /expect "\(" is not a valid regular expression: missing closing \)/,
    );
    assertMatch(
      await portal.fail("process_start", { command: "cat", prompt: "[" }),
      /prompt "\[" is not a valid regular expression: missing closing \]/,
    );
    assertMatch(await portal.fail("process_write", { id }), /Nothing to send: give content/);
    assertEquals((await portal.call("process_read", { id, source: "stdin" })).records, []);
  },
);

/**
 * A relay like ssh: it always polls its terminal and a socket, so the kernel
 * cannot tell whether the far side is done. The far side (a thread behind a
 * socketpair) answers each line in two parts, half a second apart.
 */
const RELAY = `
import os, select, socket, threading, time
near, far = socket.socketpair()
def remote():
    while True:
        line = far.recv(1024).decode().strip()
        far.send(b"working\\n")
        time.sleep(0.5)
        far.send(("result: " + line + "\\nremote$ ").encode())
threading.Thread(target=remote, daemon=True).start()
os.write(1, b"remote$ ")
while True:
    ready, _, _ = select.select([0, near], [], [])
    if 0 in ready:
        near.send(os.read(0, 1024))
    if near in ready:
        os.write(1, near.recv(1024))
`;

portalTest(
  "relays: silence after a prompt-like line counts, never a pause mid-answer",
  async (portal) => {
    const { id, output } = await portal.call("process_start", {
      command: "python3",
      args: ["-c", RELAY],
      pty: true,
      wait: "ready",
    });
    assertEquals(output, "remote$ ");
    const answer = await portal.call("process_write", { id, content: "ls\n", quiet_ms: 200 });
    assertEquals([answer.reason, answer.state], ["ready", "waiting_for_input"]);
    assertEquals(answer.output, "working\nresult: ls\nremote$ ");
  },
);

linuxTest(
  "a terminal inside a terminal (script) is a relay: a pause inside a command is no prompt",
  async (portal) => {
    // script(1) polls its terminal and the master of the inner one, as sudo's use_pty,
    // asciinema and unbuffer do: the inner bash, on a terminal of its own, reads there.
    const { id, output } = await portal.call("process_start", {
      command: "script",
      args: ["-qfc", "bash --norc --noprofile -i", "/dev/null"],
      pty: true,
      wait: "ready",
    });
    assertMatch(output, /[#$] $/);
    const began = performance.now();
    // The pause is 3 times quiet_ms's default, the silence after which a relay's prompt counts.
    const reply = await portal.call("process_write", {
      id,
      content: "sleep 1; echo finished\n",
      wait_ms: 20_000,
    });
    const tookMs = performance.now() - began;
    assertEquals([reply.reason, reply.state], ["ready", "waiting_for_input"]);
    assertMatch(reply.output, /finished\n[^\n]*[#$] $/);
    assert(tookMs >= 1000, `the reply came after ${Math.round(tookMs)} ms, mid-command`);
  },
);

portalTest("prompt: a per-process pattern also counts as ready", async (portal) => {
  // The far side of the relay above answers at once here; prompt matches its line.
  const { id } = await portal.call("process_start", {
    command: "python3",
    args: ["-c", RELAY.replace("time.sleep(0.5)", "")],
    pty: true,
    prompt: "^remote\\$ $",
    wait: "ready",
  });
  const answer = await portal.call("process_write", { id, content: "pwd\n", quiet_ms: 60_000 });
  assertEquals([answer.reason, answer.output], ["ready", "working\nresult: pwd\nremote$ "]);
});

portalTest(
  "a waiting agent is not idle: the idle timeout holds off during a wait",
  async (portal) => {
    const { id } = await portal.call("process_start", {
      command: "sleep",
      args: ["30"],
      timeout_ms: 300,
    });
    // Killed by its idle timeout mid-wait (twice as long), the wait would end with reason exit.
    const waited = await portal.call("process_read_new", { id, wait: "exit", wait_ms: 600 });
    assertEquals([waited.reason, waited.state], ["timeout", "running"]);
    // Once the agent stops waiting, the idle timeout runs again and removes the process.
    await waitFor(
      "the idle timeout to remove the process",
      async () =>
        !(await portal.call("process_list")).processes.some((p: { id: number }) => p.id === id),
    );
  },
);

portalTest(
  "prompt decides for programs the kernel misjudges: node reads keys during an await",
  async (portal) => {
    // node's REPL keeps its terminal in its epoll set while a top-level await runs: without
    // prompt, the wait would end at the echo. With it, it ends at the next "> ".
    const { id, output } = await portal.call("process_start", {
      command: "node",
      pty: true,
      prompt: "^> $",
      wait: "ready",
    });
    assertMatch(output, /> $/);
    const late = await portal.call("process_write", {
      id,
      content: "await new Promise((r) => setTimeout(r, 300)); 'late'\n",
    });
    assertEquals([late.reason, late.state], ["ready", "waiting_for_input"]);
    assertEquals(late.output, "'late'\n> ");
  },
);

portalTest(
  "prompt: a step ends once the prompt is drawn after the answer and the input is taken",
  async (portal) => {
    // Where the kernel shows python reading with nothing unread, the prompt's match ends the
    // step at once (no settle); an answer printed in two parts with python busy between is
    // whole in every reply.
    const id = await portal.spawn("python3", ["-q"], {
      pty: true,
      prompt: "^>>> $",
      wait: "ready",
    });
    assertEquals(
      (await portal.call("process_write", { id, content: "import time\n" })).output,
      ">>> ",
    );
    for (let i = 0; i < 20; i++) {
      const content = `print(${i}); time.sleep(0.005); print(${i * 7})\n`;
      const reply = await portal.call("process_write", { id, content });
      assertEquals([reply.reason, reply.output], ["ready", `${i}\n${i * 7}\n>>> `]);
    }
  },
);

portalTest(
  "prompt: node's REPL reading keys during short awaits is never taken for its answer",
  async (portal) => {
    // The kernel shows node reading with nothing unread all through each await: only the
    // prompt drawn after the answer ends the step.
    const { id } = await portal.call("process_start", {
      command: "node",
      pty: true,
      prompt: "^> $",
      wait: "ready",
    });
    for (let i = 0; i < 10; i++) {
      const content = `await new Promise((r) => setTimeout(r, ${5 + i})); 'late ${i}'\n`;
      const reply = await portal.call("process_write", { id, content });
      assertEquals([reply.reason, reply.output], ["ready", `'late ${i}'\n> `]);
    }
  },
);

/**
 * Takes a key in raw mode; after a lone ESC it waits 25 ms, then 100 ms (as vim
 * does, the second being its key-sequence timeout), and only then acts on it.
 */
const KEY_READER = `import os, select, sys, tty
tty.setraw(0)
os.write(1, b"keys> ")
while True:
    key = os.read(0, 100)
    if key.endswith(b"\\x1b"):
        select.select([0], [], [], 0.025)
        select.select([0], [], [], 0.1)
    os.write(1, b"took " + repr(key).encode() + b"\\r\\nkeys> ")
`;

linuxTest(
  "a lone Escape: the reply waits out every short wait the program makes for the rest of a key",
  async (portal) => {
    const { id } = await portal.call("process_start", {
      command: "python3",
      args: ["-c", KEY_READER],
      pty: true,
      wait: "ready",
    });
    for (const keys of [["Escape"], ["a", "Escape"]]) {
      const typed = await portal.call("process_write", { id, keys });
      assertEquals([typed.state, typed.reason], ["waiting_for_input", "ready"]);
      assertMatch(typed.output, /took b'a?\\x1b'\nkeys> $/);
    }
  },
);

/**
 * Asks its terminal for the cursor position at start, as vim does, and reads
 * the answer in raw mode before it prompts; the lines before the question
 * keep the emulator busy a while before it can answer.
 */
const ASKS_AT_START = `import os, sys, tty
for i in range(20000): print("line", i)
sys.stdout.flush()
tty.setraw(0)
os.write(1, b"\\x1b[6n")
answer = b""
while not answer.endswith(b"R"):
    answer += os.read(0, 1)
os.write(1, b"answered " + repr(answer).encode() + b"\\r\\n> ")
os.write(1, b"got " + repr(os.read(0, 100)).encode() + b"\\r\\n")
`;

linuxTest(
  "a program waiting for its terminal's answer is not waiting for input: start returns after it",
  async (portal) => {
    const started = await portal.call("process_start", onPty("python3", ["-c", ASKS_AT_START]));
    assertEquals([started.state, started.reason], ["waiting_for_input", "ready"]);
    assertMatch(started.output, /answered b'\\x1b\[24;1R'\n> $/);
    const typed = await portal.call("process_write", {
      id: started.id,
      content: "x",
      wait: "exit",
    });
    assertStringIncludes(typed.output, "got b'x'");
  },
);
