/**
 * `portal attach` and `portal ps` as a person uses them, in a real terminal:
 * tmux runs attach in a pane of its own (new-session -d, send-keys,
 * capture-pane), against the host an agent's client started.
 */
import { type Json, MAIN, serverEnv } from "../../dev/portal_client.ts";
import { waitFor } from "../../dev/wait.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { startCalc } from "../helpers/calc.ts";
import { runCli } from "../helpers/cli.ts";
import { sharedPortal } from "../helpers/portal.ts";
import { Pane } from "../helpers/pane.ts";

// One host for the file: each test names its programs apart ("nosuch" is no one's).
const { portalTest, linuxTest } = sharedPortal();

linuxTest(
  "portal attach: a person joins the agent's python in a real terminal, types, detaches with Ctrl+]",
  async (agent) => {
    const calc = await startCalc(agent);
    try {
      const env = await serverEnv(agent.dir);
      await using pane = await Pane.open(agent.dir, [
        Deno.execPath(),
        "run",
        "-A",
        MAIN,
        "attach",
        "calc",
      ], env);
      await pane.until(
        "the banner and the prompt",
        (t) =>
          t.includes("[portal] attached to calc") && t.includes("Ctrl+] detaches") &&
          /^>>> ?$/m.test(t),
      );
      await pane.keys("print(6*7)", "Enter");
      await pane.until("python's answer", (t) => /^42$/m.test(t));
      await pane.keys("C-]");
      const after = await pane.until("the detach", (t) => t.includes("[exit "));
      assertMatch(after, /\[portal\] detached from calc \(id \d+\); it runs on/);
      assertMatch(after, /\[exit 0\]/);
      // Python runs on, and what the person typed is input in its records, as the agent's is.
      const inspected = await agent.call("process_inspect", { id: calc.id });
      assertEquals(inspected.status, "running");
      // The agent's next reply on it says what the person typed, as after a Take over on the page.
      assertEquals(inspected.person_input, "print(6*7)\r");
      const read = await agent.call("process_read", {
        id: calc.id,
        source: "stdin",
        duration: 60,
        unit: "s",
      });
      assertMatch(read.records.map((r: Json) => r.content).join(""), /print\(6\*7\)\r/);
      assertEquals(read.person_input, undefined); // Told once.
      // The agent writes on where the person left off.
      const step = await agent.call("process_write", { id: calc.id, content: "6*7 + 1\n" });
      assertMatch(step.output, /^43$/m);

      const ps = await runCli(agent.dir, ["ps"]);
      assertEquals(ps.code, 0, ps.stderr);
      assertMatch(ps.stdout, /^ID +NAME +KEEP +STATUS +STATE +PID +COMMAND$/m);
      assertMatch(
        ps.stdout,
        new RegExp(`^${calc.id} +calc +yes +running +\\S+ +${calc.os_pid} +python3$`, "m"),
      );
    } finally {
      await agent.call("process_kill", { id: calc.id }).catch(() => {});
    }
  },
);

portalTest(
  "portal attach: an ended program shows its last screen (exit 0); an unknown one exits 1",
  async (agent) => {
    const done = await agent.spawn("sh", ["-c", "echo the last words"], {
      pty: true,
      name: "done",
    });
    await agent.waitExit(done);
    const ended = await runCli(agent.dir, ["attach", "done"]);
    assertEquals(ended.code, 0, ended.stderr);
    assertMatch(ended.stdout, /done \(id \d+\), sh, exited with code 0; its last screen:/);
    assertMatch(ended.stdout, /the last words/);
    const unknown = await runCli(agent.dir, ["attach", "nosuch"]);
    assertEquals([unknown.code, unknown.stdout], [1, ""]);
    assertEquals(
      unknown.stderr,
      'portal: no process has the id or name "nosuch": `portal ps` lists them\n',
    );
  },
);

portalTest(
  "portal ps and attach show the control characters of a program's command, never send them",
  async (agent) => {
    // A title change, a bell and a screen clear in the program's file name.
    const script = `${agent.dir}/evil\x1b]0;pwned\x07\x1b[2J`;
    await Deno.writeTextFile(script, "#!/bin/sh\nexec sleep 300\n", { mode: 0o755 });
    const { id } = await agent.call("process_start", { command: script, name: "evil" });
    const shown = String.raw`evil\x1b]0;pwned\x07\x1b[2J`.replace(/[[\]\\]/g, "\\$&");
    const ps = await runCli(agent.dir, ["ps"]);
    assertEquals(ps.code, 0, ps.stderr);
    assert(!ps.stdout.includes("\x1b") && !ps.stdout.includes("\x07"), JSON.stringify(ps.stdout));
    assertMatch(ps.stdout, new RegExp(`^${id} +evil +no +running .*/${shown}$`, "m"));
    await agent.call("process_kill", { id });
    const attached = await runCli(agent.dir, ["attach", "evil"]);
    assertEquals(attached.code, 0, attached.stderr);
    assert(!attached.stdout.includes("\x1b"), JSON.stringify(attached.stdout));
    assertMatch(
      attached.stdout,
      new RegExp(`evil \\(id ${id}\\), \\S*/${shown}, was killed \\(SIGTERM\\); its last screen:`),
    );
  },
);

portalTest(
  "attach, watch and export resolve a name alike: the live process, else the newest; unknown exits 1",
  async (agent) => {
    const start = () =>
      agent.call("process_start", { command: "cat", pty: true, name: "calc", keep: true });
    const killed = await start();
    await agent.call("process_kill", { id: killed.id });
    const live = await start();
    await agent.call("process_write", { id: live.id, content: "hello\n" });
    try {
      const attached = await runCli(agent.dir, ["attach", "calc"]);
      assertEquals(attached.code, 0, attached.stderr);
      assertMatch(attached.stdout, new RegExp(`attached to calc \\(id ${live.id}\\)`));
      const watched = await runCli(agent.dir, ["watch", "calc"]);
      assertEquals(watched.code, 0, watched.stderr);
      assertEquals(new URL(watched.stdout.trim()).searchParams.get("id"), String(live.id));
      // export reads the records database, which the host commits to a moment after the echo.
      const exported = await waitFor(
        "the export to hold the echo",
        () => runCli(agent.dir, ["export", "calc"]),
        {
          until: (run) => run.code !== 0 || run.stdout.includes("hello"),
          intervalMs: 50,
        },
      );
      assertEquals(exported.code, 0, exported.stderr);
      assertMatch(exported.stderr, new RegExp(`^portal: process ${live.id} of `));
      for (const command of ["attach", "watch", "export"]) {
        const unknown = await runCli(agent.dir, [command, "nosuch"]);
        assertEquals([unknown.code, unknown.stdout], [1, ""], command);
        assertMatch(unknown.stderr, /^portal: no process has the id or name "nosuch"/, command);
        assertEquals(unknown.stderr.trim().split("\n").length, 1, unknown.stderr);
      }
    } finally {
      await agent.call("process_kill", { id: live.id });
    }
  },
);
