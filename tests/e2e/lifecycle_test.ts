import { Portal } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";
import { posixTest } from "../helpers/platform.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { portalTest as ownPortalTest, sharedPortal } from "../helpers/portal.ts";
import { pidAlive } from "../helpers/processes.ts";
import { CONTENT_MAX_CHARS } from "../../src/limits.ts";

// One server for the tests that look at their own processes only; kill_all and the
// shutdowns have their own.
const { portalTest } = sharedPortal();

portalTest(
  "start: args, cwd and env (merged over the server's) reach the program",
  async (portal) => {
    await using temp = await tempDir();
    const dir = temp.path;
    const id = await portal.spawn("sh", [
      "-c",
      'echo "$1|$(pwd)|$GREETING|${PATH:+path}"',
      "sh",
      "a b",
    ], {
      cwd: dir,
      env: { GREETING: "hi there" },
    });
    const listed = (await portal.call("process_list")).processes
      .find((p: { id: number }) => p.id === id);
    assertEquals(listed.command, "sh");
    assert(listed.os_pid > 0);
    const out = await portal.readUntil(id, (t) => t.endsWith("\n"));
    assertEquals(out, `a b|${await Deno.realPath(dir)}|hi there|path\n`);
    const info = await portal.waitExit(id);
    assertEquals(info.env, ["GREETING"]);
    assertEquals(info.cwd, dir);
    assertEquals(info.args, ["-c", 'echo "$1|$(pwd)|$GREETING|${PATH:+path}"', "sh", "a b"]);
    assertEquals([info.status, info.exit_code, info.pty], ["exited", 0, false]);
    assert(Date.parse(info.ended_at) >= Date.parse(info.started_at));
  },
);

portalTest(
  "kill keeps the records and ends the process group; cleanup removes everything",
  async (portal) => {
    const id = await portal.spawn("sh", ["-c", "sleep 1000 & echo child:$!; wait"]);
    const out = await portal.readUntil(id, (t) => /child:\d+\n/.test(t));
    const grandchild = Number(/child:(\d+)/.exec(out)![1]);
    assert(pidAlive(grandchild));
    const killed = await portal.call("process_kill", { id });
    assertEquals(killed.status, "killed");
    assertEquals(killed.exit_signal, "SIGTERM");
    await waitFor("the grandchild to die with its group", () => !pidAlive(grandchild));
    const { records } = await portal.call("process_read", { id, duration: 60, unit: "s" });
    assertMatch(records[0].content, /^child:\d+/);
    assertMatch(
      await portal.fail("process_write", { id, content: "x" }),
      /it was killed.*process_read/,
    );
    assertMatch(
      await portal.fail("process_kill", { id }),
      /Cannot kill process \d+: it was killed/,
    );

    assertEquals(await portal.call("process_cleanup", { id }), { id, removed: true });
    assertMatch(
      await portal.fail("process_inspect", { id }),
      /No process with id \d+ \(it was cleaned up/,
    );
    const { processes } = await portal.call("process_list");
    assertEquals(processes.filter((p: { id: number }) => p.id === id), []);
  },
);

portalTest("kill escalates to SIGKILL for a program that ignores SIGTERM", async (portal) => {
  const id = await portal.spawn("sh", [
    "-c",
    "trap '' TERM; echo ready; while :; do sleep 1; done",
  ]);
  await portal.readUntil(id, (t) => t.includes("ready"));
  const killed = await portal.call("process_kill", { id });
  assertEquals([killed.status, killed.exit_signal], ["killed", "SIGKILL"]);
});

portalTest("signal: by name or number, to the whole process group", async (portal) => {
  const id = await portal.spawn("sh", [
    "-c",
    "trap 'echo got-usr1' USR1; echo ready; while :; do sleep 0.05; done",
  ]);
  await portal.readUntil(id, (t) => t.includes("ready"));
  const sent = await portal.call("process_signal", { id, signal: "usr1" });
  assertEquals(sent, { id, signal: "SIGUSR1", delivered_to: "process group" });
  await portal.readUntil(id, (t) => t.includes("got-usr1"));
  await portal.call("process_signal", { id, signal: "9" });
  const info = await portal.waitExit(id);
  assertEquals([info.status, info.exit_code, info.exit_signal], ["exited", null, "SIGKILL"]);
});

portalTest("signal: real-time signals by name (SIGRTMIN+n) reach the program", async (portal) => {
  const id = await portal.spawn("python3", [
    "-uc",
    "import signal,sys,time\n" +
    "signal.signal(signal.SIGRTMIN + 2, lambda s, f: print('rt', s - signal.SIGRTMIN))\n" +
    "print('ready')\nwhile True: time.sleep(0.05)",
  ]);
  await portal.readUntil(id, (t) => t.includes("ready"));
  const sent = await portal.call("process_signal", { id, signal: "SIGRTMIN+2" });
  assertEquals(sent.signal, "SIGRTMIN+2");
  await portal.readUntil(id, (t) => t.includes("rt 2"));
}, { only: "linux" }); // macOS has no real-time signals

portalTest(
  "idle timeout kills the process and removes its data; reads keep it alive",
  async (portal) => {
    // `idle` lives 2.5 times as long as `kept` unattended, and gets no attention.
    const kept = await portal.spawn("sleep", ["1000"], { timeout_ms: 600 });
    const idle = await portal.spawn("sh", ["-c", "echo $$; exec sleep 1000"], {
      timeout_ms: 1500,
    });
    const pid = (await portal.call("process_inspect", { id: idle })).os_pid;
    // Reading `kept` at every poll until `idle` times out carries `kept` well past its own timeout.
    await waitFor("the idle process to be removed", async () => {
      await portal.call("process_read_new", { id: kept });
      return (await portal.call("process_list")).processes.map((p: { id: number }) => p.id);
    }, { until: (ids) => !ids.includes(idle), intervalMs: 50 });
    assertEquals((await portal.call("process_inspect", { id: kept })).status, "running");
    await waitFor("the idle process to die", () => !pidAlive(pid));
    assertMatch(await portal.fail("process_read", { id: idle }), /No process with id/);
  },
);

ownPortalTest("kill_all kills every running process and keeps their records", async (portal) => {
  const a = await portal.spawn("sh", ["-c", "echo a; exec sleep 1000"]);
  const b = await portal.spawn("sleep", ["1000"]);
  const done = await portal.spawn("true");
  await portal.waitExit(done);
  await portal.readUntil(a, (t) => t.includes("a"));
  const { killed } = await portal.call("process_kill_all");
  assertEquals(killed.sort(), [a, b]);
  const { processes } = await portal.call("process_list");
  assertEquals(processes.map((p: { status: string }) => p.status), [
    "killed",
    "killed",
    "exited",
  ]);
  assertEquals(
    (await portal.call("process_read", { id: a, duration: 60, unit: "s" })).records[0].content,
    "a\n",
  );
});

for (const noHost of [false, true]) {
  const server = noHost ? "server (--no-host)" : "door";
  posixTest(`${server} shutdown kills the process group, grandchildren included`, async () => {
    let grandchild = 0;
    {
      await using portal = await Portal.start({ noHost });
      const id = await portal.spawn("sh", ["-c", "sleep 1000 & echo $!; wait"]);
      grandchild = Number((await portal.readUntil(id, (t) => t.endsWith("\n"))).trim());
      assert(pidAlive(grandchild));
    }
    await waitFor("the grandchild to die at shutdown", () => !pidAlive(grandchild));
  });

  for (const signal of ["SIGTERM", "SIGHUP", "SIGINT"] as const) {
    posixTest(`${server} killed by ${signal}: its client's processes die`, async () => {
      await using portal = await Portal.start({ noHost });
      const id = await portal.spawn("sh", ["-c", "sleep 1000 & echo $!; wait"]);
      const grandchild = Number((await portal.readUntil(id, (t) => t.endsWith("\n"))).trim());
      const pid = portal.transport.pid!;
      Deno.kill(pid, signal);
      await waitFor("the server to exit", () => !pidAlive(pid));
      await waitFor("the grandchild to die", () => !pidAlive(grandchild));
    });
  }
}

portalTest("write with eof: pipes close stdin, a PTY gets Ctrl+D", async (portal) => {
  const sorter = await portal.spawn("sort");
  await portal.call("process_write", {
    id: sorter,
    content: "pear\napple\n",
    eof: true,
    wait: "none",
  });
  assertEquals(await portal.readUntil(sorter, (t) => t.endsWith("pear\n")), "apple\npear\n");
  assertEquals((await portal.waitExit(sorter)).exit_code, 0);
  assertMatch(await portal.fail("process_write", { id: sorter, content: "x" }), /has exited/);

  const cat = await portal.spawn("cat", [], { pty: true });
  await portal.call("process_write", { id: cat, content: "", eof: true, wait: "none" });
  assertEquals((await portal.waitExit(cat)).exit_code, 0);

  const reader = await portal.spawn("sh", ["-c", "read a; echo got:$a; sleep 1000"]);
  await portal.call("process_write", { id: reader, content: "1\n", eof: true, wait: "none" });
  await portal.readUntil(reader, (t) => t.includes("got:1"));
  assertMatch(
    await portal.fail("process_write", { id: reader, content: "more\n" }),
    /input is closed/,
  );
});

portalTest(
  "input to a program that never reads is refused past 8 MiB, never hangs",
  async (portal) => {
    const id = await portal.spawn("sleep", ["1000"]);
    // A write takes at most CONTENT_MAX_CHARS: eight of them fill the 8 MiB queue.
    const chunk = "x".repeat(CONTENT_MAX_CHARS);
    for (let i = 0; i < 8; i++) {
      await portal.call("process_write", { id, content: chunk, wait: "none" });
    }
    assertMatch(
      await portal.fail("process_write", { id, content: chunk }),
      /not reading its input: \d+ bytes are still waiting/,
    );
    // The server is as responsive as before.
    assertEquals((await portal.call("process_inspect", { id })).status, "running");
  },
);

portalTest(
  "a background job holding the pipes does not keep the program from exiting",
  async (portal) => {
    const id = await portal.spawn("sh", ["-c", "sleep 3 & echo started"]);
    const info = await portal.waitExit(id);
    assertEquals([info.status, info.exit_code], ["exited", 0]);
    const { records } = await portal.call("process_read", { id, duration: 60, unit: "s" });
    assertEquals(records.map((r: { content: string }) => r.content).join(""), "started\n");
  },
);
