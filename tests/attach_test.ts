/**
 * `portal attach` and `portal ps` as a person uses them, in a real terminal:
 * tmux runs attach in a pane of its own (new-session -d, send-keys,
 * capture-pane), against the host an agent's client started.
 */
import { type Json, MAIN, Portal, serverEnv } from "../dev/portal_client.ts";
import { assertEquals, assertMatch } from "./helpers/assert.ts";
import { runCli } from "./helpers/cli.ts";
import { posixTest } from "./helpers/platform.ts";
import { hostDir } from "./helpers/portal.ts";
import { Pane } from "./helpers/pane.ts";

posixTest(
  "portal attach: a person joins the agent's python in a real terminal, types, detaches with Ctrl+]",
  async () => {
    await using dir = await hostDir();
    await using agent = await Portal.start({ dir: dir.path });
    try {
      const calc = await agent.call("process_start", {
        command: "python3",
        args: ["-q"],
        pty: true,
        keep: true,
        name: "calc",
        wait: "ready",
      });
      const env = await serverEnv(dir.path);
      await using pane = await Pane.open(dir.path, [
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
      assertEquals((await agent.call("process_inspect", { id: calc.id })).status, "running");
      const { records } = await agent.call("process_read", {
        id: calc.id,
        source: "stdin",
        duration: 60,
        unit: "s",
      });
      assertMatch(records.map((r: Json) => r.content).join(""), /print\(6\*7\)\r/);
      // The agent writes on where the person left off.
      const step = await agent.call("process_write", { id: calc.id, content: "6*7 + 1\n" });
      assertMatch(step.output, /^43$/m);

      const ps = await runCli(dir.path, ["ps"]);
      assertEquals(ps.code, 0, ps.stderr);
      assertMatch(ps.stdout, /^ID +NAME +KEEP +STATUS +STATE +PID +COMMAND$/m);
      assertMatch(
        ps.stdout,
        new RegExp(`^${calc.id} +calc +yes +running +\\S+ +${calc.os_pid} +python3$`, "m"),
      );
    } finally {
      await agent.call("process_kill_all").catch(() => {});
    }
  },
  { only: "linux" },
);

posixTest(
  "portal attach: an ended program shows its last screen (exit 0); an unknown one exits 1",
  async () => {
    await using dir = await hostDir();
    await using agent = await Portal.start({ dir: dir.path });
    const done = await agent.spawn("sh", ["-c", "echo the last words"], {
      pty: true,
      name: "done",
    });
    await agent.waitExit(done);
    const ended = await runCli(dir.path, ["attach", "done"]);
    assertEquals(ended.code, 0, ended.stderr);
    assertMatch(ended.stdout, /done \(id \d+\), sh, has exited; its last screen:/);
    assertMatch(ended.stdout, /the last words/);
    const unknown = await runCli(dir.path, ["attach", "nosuch"]);
    assertEquals([unknown.code, unknown.stdout], [1, ""]);
    assertEquals(
      unknown.stderr,
      'portal: no process has the id or name "nosuch": `portal ps` lists them\n',
    );
  },
);
