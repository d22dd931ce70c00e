/**
 * The per-user host: programs a client keeps outlive it and the next client
 * finds them; a door's end ends only its client's unkept programs; the
 * host's end ends everything, and the next host lists what it held; a host
 * with nothing to do leaves after its grace; two doors at once share one
 * host; a door whose host hangs up before its welcome starts another; a
 * client that connects once per call keeps its processes; every start
 * shares one database; the host runs with V8_FLAGS. Each test owns its
 * directory (so closing a client leaves the host up) and ends the host itself.
 */
import {
  endHost,
  hostPid,
  initializeRequest,
  type Json,
  Portal,
  serverEnv,
} from "../../dev/portal_client.ts";
import { pidsOf } from "../../dev/process_table.ts";
import { asRoot, copyServerPackages, otherUser } from "../helpers/other_user.ts";
import { jsonLine, spawnServer } from "../../dev/raw_lines.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";
import { hostAddress } from "../../src/host/address.ts";
import { HOST_GRACE_MS, V8_FLAGS } from "../../src/limits.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { startCalc } from "../helpers/calc.ts";
import { posixTest } from "../helpers/platform.ts";
import { hostDir } from "../helpers/portal.ts";
import { pidAlive } from "../helpers/processes.ts";
import { queryRecords } from "../helpers/records_file.ts";

posixTest("a kept process outlives its client; the next client finds it by name", async () => {
  await using dir = await hostDir();
  let calc: Json;
  let sleep: Json;
  {
    await using first = await Portal.start({ dir: dir.path });
    calc = await startCalc(first);
    sleep = await first.call("process_start", { command: "sleep", args: ["300"] });
    await first.call("process_write", { id: calc.id, content: "x = 41\n" });
  }
  // waitFor's 10 s deadline fails only a broken teardown; how soon is bench/teardown.ts's.
  await waitFor("the unkept sleep to die with its client", () => !pidAlive(sleep.os_pid));
  assert(pidAlive(calc.os_pid), "the kept python runs on");
  await using second = await Portal.start({ dir: dir.path });
  const { processes } = await second.call("process_list");
  const found = processes.find((p: Json) => p.name === "calc");
  assertEquals([found?.id, found?.keep, found?.status], [calc.id, true, "running"]);
  assertEquals(processes.length, 1, "the first client's sleep is not the second's");
  const step = await second.call("process_write", { id: calc.id, content: "x + 1\n" });
  assertMatch(step.output, /^42$/m);
  assertMatch(
    await second.fail("process_inspect", { id: sleep.id }),
    /belonged to a client that has left, and ended with it/,
  );
});

posixTest(
  "SIGKILL of a door ends only its client's unkept programs; SIGKILL of the host ends all",
  async () => {
    await using dir = await hostDir();
    const first = await Portal.start({ dir: dir.path });
    const second = await Portal.start({ dir: dir.path });
    try {
      const calc = await startCalc(first);
      await first.call("process_write", { id: calc.id, content: "print('kept' + 'alive')\n" });
      const mine = await first.call("process_start", { command: "sleep", args: ["300"] });
      const theirs = await second.call("process_start", { command: "sleep", args: ["300"] });
      const host = first.serverPid;
      assertEquals(second.serverPid, host, "one host for both");

      Deno.kill(first.transport.pid!, "SIGKILL");
      // Deadlines are waitFor's (10 s): how soon programs end is bench/teardown.ts's figure.
      await waitFor("the killed door's sleep to die", () => !pidAlive(mine.os_pid));
      assert(pidAlive(calc.os_pid) && pidAlive(theirs.os_pid) && pidAlive(host));
      // Its end is in the file with the next commit (200 ms), before the host is killed.
      await waitFor("the killed door's sleep to be recorded killed", () => {
        return queryRecords(first.dbPath, "SELECT status FROM processes WHERE id = ?", mine.id)[0]
          ?.status;
      }, { until: (status) => status === "killed" });

      Deno.kill(host, "SIGKILL");
      await waitFor("every program to die with the host", () => {
        return [calc.os_pid, theirs.os_pid].filter(pidAlive);
      }, { until: (left) => left.length === 0, intervalMs: 20 });

      // The next client starts a new host on the same database: the earlier processes are
      // listed, ended, with their output; ids go on.
      await using third = await Portal.start({ dir: dir.path });
      assert(third.serverPid !== host);
      const { processes } = await third.call("process_list");
      const listed = Object.fromEntries(processes.map((p: Json) => [p.id, p.status]));
      assertEquals(listed, { [calc.id]: "killed", [theirs.id]: "killed" });
      const { records } = await third.call("process_read", {
        id: calc.id,
        duration: 600,
        unit: "s",
      });
      assertMatch(records.map((r: Json) => r.content).join(""), /keptalive/);
      const page = await third.call("process_read_new", { id: calc.id });
      assertMatch(page.records.map((r: Json) => r.content).join(""), /keptalive/);
      assertMatch(await third.fail("process_write", { id: calc.id, content: "1\n" }), /killed/);
      const next = await third.spawn("true");
      assert(next > theirs.id, `ids go on: ${next}`);
    } finally {
      await Promise.allSettled([first.close(), second.close()]);
    }
  },
  { only: "linux" },
);

posixTest(
  "a process started just before the host is SIGKILLed is known to the next host, its id not handed out again",
  async () => {
    await using dir = await hostDir();
    const first = await Portal.start({ dir: dir.path });
    const started: Json[] = [];
    try {
      const host = first.serverPid;
      // The host dies right after the last answer: within the store's commit interval (200 ms).
      for (let i = 0; i < 3; i++) {
        started.push(await first.call("process_start", { command: "sleep", args: ["300"] }));
      }
      Deno.kill(host, "SIGKILL");
      await waitFor("the host to die", () => !pidAlive(host));
    } finally {
      await first.close();
    }
    await using second = await Portal.start({ dir: dir.path });
    const { processes } = await second.call("process_list");
    assertEquals(
      processes.map((p: Json) => [p.id, p.command, p.status]),
      started.map((p) => [p.id, "sleep", "killed"]),
    );
    for (const { id } of started) {
      assertEquals((await second.call("process_inspect", { id })).args, ["300"]);
    }
    const next = await second.spawn("true");
    assertEquals(next, started.at(-1).id + 1, "ids go on after the last one handed out");
  },
);

posixTest("a host with no client and nothing kept leaves after its grace", async () => {
  await using dir = await hostDir();
  let host: number;
  {
    await using portal = await Portal.start({ dir: dir.path });
    host = portal.serverPid;
    // A kept process that has ended does not hold the host.
    const kept = await portal.spawn("true", [], { keep: true });
    await portal.waitExit(kept);
  }
  const left = Date.now();
  // Polled four times a second (each poll runs `ps`): its leaving is known within 250 ms.
  await waitFor("the host to leave", () => !pidAlive(host), {
    timeoutMs: HOST_GRACE_MS + 5000,
    intervalMs: 250,
  });
  assert(Date.now() - left >= HOST_GRACE_MS - 1000, "not before its grace");
  // Its socket is gone, and a new start works.
  assertEquals(hostPid(dir.path), undefined);
  await using next = await Portal.start({ dir: dir.path });
  assertEquals((await next.call("process_list")).processes.length, 1, "the kept one, ended");
});

posixTest("two doors started at the same instant end up on one host", async () => {
  await using dir = await hostDir();
  const doors = await Promise.all([0, 1, 2].map(() => Portal.start({ dir: dir.path })));
  try {
    const pids = new Set(doors.map((door) => door.serverPid));
    assertEquals(pids.size, 1, [...pids].join(" "));
    const ids = await Promise.all(doors.map((door) => door.spawn("sleep", ["60"], { keep: true })));
    const listed = (await doors[0].call("process_list")).processes.map((p: Json) => p.id);
    assertEquals(listed, ids.sort((a, b) => a - b));
  } finally {
    await Promise.all(doors.map((door) => door.close()));
  }
});

posixTest("a door whose host hangs up before its welcome starts another", async () => {
  await using dir = await hostDir();
  // A host at the end of its grace: it takes the door's connection, then hangs up and is gone.
  const { socket } = await hostAddress(await serverEnv(dir.path));
  const leaving = Deno.listen({ transport: "unix", path: socket });
  const hungUp = (async () => {
    const conn = await leaving.accept();
    await conn.read(new Uint8Array(1 << 16)); // The door's hello.
    leaving.close(); // Its socket file goes with it.
    conn.close();
  })();
  await using portal = await Portal.start({ dir: dir.path });
  await hungUp;
  assert(portal.serverPid !== Deno.pid && pidAlive(portal.serverPid), "a host of its own");
  assertEquals((await portal.call("process_list")).processes, []);
});

posixTest(
  "a client that connects once per call keeps what it starts with keep; another session's is refused",
  async () => {
    await using dir = await hostDir();
    const once = async <T>(call: (portal: Portal) => Promise<T>): Promise<T> => {
      await using portal = await Portal.start({ dir: dir.path });
      return await call(portal);
    };
    const { id } = await once((p) =>
      p.call("process_start", { command: "cat", keep: true, name: "echoer" })
    );
    const step = await once((p) => p.call("process_write", { id, content: "again\n" }));
    assertEquals(step.output, "again\n");
    await using live = await Portal.start({ dir: dir.path });
    const own = await live.spawn("sleep", ["60"]);
    assertMatch(
      await once((p) => p.fail("process_write", { id: own, content: "x" })),
      new RegExp(`No process with id ${own} you can use: it belongs to another client's session`),
    );
  },
);

posixTest("every start shares one database: no file per start", async () => {
  await using dir = await hostDir();
  const env = { PORTAL_DB_PATH: "" };
  for (let i = 0; i < 3; i++) {
    await using portal = await Portal.start({ dir: dir.path, env });
    await portal.call("process_list");
    if (i < 2) await endHost(dir.path); // a new host each time, as after a grace
  }
  const records = `${dir.path}/home/.local/state/portal/records`;
  const names = [...Deno.readDirSync(records)].map((e) => e.name).sort();
  // Beside it: its journal, its lock, its tasks and the running host's watch link.
  assertEquals(names.filter((n) => !n.endsWith("-journal")), [
    "portal.db",
    "portal.db.lock",
    "portal.db.tasks",
    "portal.db.watch",
  ]);
});

posixTest(
  "another user cannot reach this user's host, and gets a host of their own (root only)",
  async () => {
    if (Deno.uid() !== 0) return; // Needs root to create the other user.
    // A user of its own (not a fixed name), so that a second suite on the machine meets no other.
    await using them = otherUser();
    const user = them.name;
    await using dir = await hostDir();
    await using other = await tempDir("portal-other-");
    try {
      await using mine = await Portal.start({ dir: dir.path });
      await mine.spawn("sleep", ["60"], { keep: true });
      const socket = [...Deno.readDirSync(`${dir.path}/run/portal`)]
        .map((e) => `${dir.path}/run/portal/${e.name}`).find((p) => p.endsWith(".sock"))!;
      // The other user runs a copy of Portal and of Deno's cache (this user's may be private).
      const cache = `${other.path}/deno_dir`;
      await copyServerPackages(`${cache}/npm`);
      for (const part of ["main.ts", "deno.json", "deno.lock", "src", "ffi"]) {
        asRoot("cp", ["-r", new URL(`../../${part}`, import.meta.url).pathname, other.path]);
      }
      asRoot("chown", ["-R", `${user}:${user}`, other.path]);
      Deno.chmodSync(dir.path, 0o755); // The other user can reach the directory, not the socket's.
      const as = (args: string[], env: Record<string, string> = {}) =>
        new Deno.Command("setpriv", {
          args: [`--reuid=${user}`, `--regid=${user}`, "--clear-groups", "--", ...args],
          env: { ...otherEnv(other.path), DENO_DIR: cache, ...env },
          stdin: "piped",
          stdout: "piped",
          stderr: "piped",
        });
      const probe = `import socket\ns = socket.socket(socket.AF_UNIX)\ntry:\n` +
        `  s.connect(${JSON.stringify(socket)}); print("connected")\n` +
        `except OSError as e: print(type(e).__name__)`;
      const reached = await runAs(as(["/usr/bin/python3", "-c", probe]));
      assertEquals(reached.stdout.trim(), "PermissionError", reached.stderr);
      // Told to use this user's runtime directory, the other user's Portal does not: it looks
      // for its host in its own temporary directory's.
      const refused = await runAs(
        as([Deno.execPath(), "run", "-A", `${other.path}/main.ts`, "ps"], {
          XDG_RUNTIME_DIR: `${dir.path}/run`,
          TMPDIR: `${other.path}/tmp`,
        }),
      );
      assertMatch(refused.stderr, /not using XDG_RUNTIME_DIR .*: Permission denied/);
      assertMatch(refused.stdout, /No Portal host is running/);
      // In its own, it gets a host of its own, which works.
      const own = await runAs(as([Deno.execPath(), "run", "-A", `${other.path}/main.ts`]), [
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",' +
        '"capabilities":{},"clientInfo":{"name":"t","version":"0"}}}',
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"process_start",' +
        '"arguments":{"command":"echo","args":["theirs"],"wait":"exit"}}}',
      ]);
      assertMatch(own.stdout, /theirs/);
      assertMatch(own.stderr, new RegExp(`through its host \\(pid \\d+, ${other.path}/run/`));
    } finally {
      await endHost(other.path);
      // Its host's sentinel leaves just after the host.
      await waitFor(`${user}'s processes to end`, () => pidsOf(user), {
        until: (pids) => pids.length === 0,
      });
    }
  },
  { only: "linux" },
);

/** The environment of the other user's Portal: everything inside `dir`. */
function otherEnv(dir: string): Record<string, string> {
  return {
    // The system's programs: this user's PATH may lead into a home the other cannot enter.
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: `${dir}/home`,
    XDG_STATE_HOME: `${dir}/home/.local/state`,
    XDG_DATA_HOME: `${dir}/home/.local/share`,
    XDG_RUNTIME_DIR: `${dir}/run`,
  };
}

/** Runs `command`, writes `lines` to its stdin, keeps it open until a reply to id 2, then closes it. */
async function runAs(
  command: Deno.Command,
  lines: string[] = [],
): Promise<{ stdout: string; stderr: string }> {
  const child = command.spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(lines.map((l) => `${l}\n`).join("")));
  let stdout = "";
  const reading = child.stdout.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (text) => void (stdout += text) }),
  );
  const stderr = new Response(child.stderr).text();
  if (lines.length > 0) {
    await waitFor("the reply to the tool call", () => stdout, {
      until: (text) => text.includes('"id":2'),
      timeoutMs: 60_000,
    });
  }
  await writer.close();
  await child.status;
  await reading;
  return { stdout, stderr: await stderr };
}

posixTest("a client that closes its input right after asking still gets its answers", async () => {
  await using dir = await hostDir();
  const asked = [
    initializeRequest("t"),
    { jsonrpc: "2.0", method: "notifications/initialized" },
    {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "process_list", arguments: {} },
    },
  ];
  for (const round of ["the host starts", "the host runs"]) {
    const child = await spawnServer(dir.path);
    const writer = child.stdin.getWriter();
    for (const message of asked) await writer.write(jsonLine(message));
    await writer.close();
    const out = new TextDecoder().decode((await child.output()).stdout);
    const ids = out.trim().split("\n").map((line) => JSON.parse(line).id);
    assertEquals(ids, [1, 2], round);
  }
});

posixTest("the host runs with V8_FLAGS, and its terminals' screens work under them", async () => {
  await using dir = await hostDir();
  await using portal = await Portal.start({ dir: dir.path });
  const id = await portal.spawn("sh", ["-c", "echo ready; exec cat"], { pty: true });
  await portal.screenUntil(id, (screen) => screen.lines.includes("ready"));
  // Linux shows a process's arguments in /proc; elsewhere `ps` does.
  const args = Deno.build.os === "linux"
    ? Deno.readTextFileSync(`/proc/${portal.serverPid}/cmdline`).split("\0")
    : new TextDecoder().decode(
      (await new Deno.Command("ps", { args: ["-o", "args=", "-p", String(portal.serverPid)] })
        .output()).stdout,
    ).trim().split(" ");
  assert(args.includes(`--v8-flags=${V8_FLAGS}`), `the host's arguments: ${args.join(" ")}`);
});
