/**
 * Programs on another machine (docs/remote.md): a throwaway sshd on
 * 127.0.0.1 whose user is the other machine, reached by key through an ssh
 * config file (`PORTAL_SSH_COMMAND="ssh -F FILE"`), with a `portal` there
 * that runs this checkout (dev/remote_machine.ts).
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import {
  endHost,
  hostLogs,
  hostPid,
  type Json,
  MAIN,
  Portal,
  serverEnv,
} from "../../dev/portal_client.ts";
import { type RemoteMachine, remoteMachine } from "../../dev/remote_machine.ts";
import { sshdAvailable } from "../../dev/sshd.ts";
import { waitFor } from "../../dev/wait.ts";
import { runCli } from "../helpers/cli.ts";
import { Pane } from "../helpers/pane.ts";
import { pidAlive } from "../helpers/processes.ts";
import { pidsByCommandLine } from "../../dev/process_table.ts";
import { linkToken, openWatchSocket } from "../helpers/watch.ts";

const ignore = Deno.build.os !== "linux" || !sshdAvailable();
const skipped = ignore ? "[skipped: needs root and sshd (package openssh-server)] " : "";

/**
 * One machine for the tests that leave nothing there another of them looks
 * at (the dropped-link test, which ends its machine, has its own): started
 * by the first, ended after the file's last test (a user, a key and an sshd
 * saved per test, ~0.5 CPU-s).
 */
let machines: Promise<RemoteMachine> | undefined;
const sharedMachine = () => machines ??= remoteMachine();
Deno.test.afterAll(async () => {
  await (await machines?.catch(() => undefined))?.[Symbol.asyncDispose]();
});
/** Its sshd outlives each test: no check for leaked ops or resources. */
const onSharedMachine = { ignore, sanitizeOps: false, sanitizeResources: false };

/** A python3 on the shared machine, started by a new client: the client and the reply. */
async function remotePython(extra: Record<string, unknown> = {}) {
  const machine = await sharedMachine();
  const portal = await Portal.start({ env: { PORTAL_SSH_COMMAND: machine.sshCommand } });
  const started = await portal.call("process_start", {
    command: "python3",
    machine: machine.alias,
    pty: true,
    wait: "ready",
    ...extra,
  });
  return { machine, portal, started };
}

Deno.test({
  name: `${skipped}a python on another machine runs as its user and answers 6*7, by the local id`,
  ...onSharedMachine,
  async fn() {
    const { machine, portal, started } = await remotePython();
    await using _ = portal;
    assertEquals(started.machine, machine.alias);
    const uid = await portal.call("process_write", {
      id: started.id,
      content: "import os; os.getuid()\n",
    });
    assertMatch(uid.output, new RegExp(`\\b${machine.uid}\\b`));
    const answer = await portal.call("process_write", { id: started.id, content: "6*7\n" });
    assertEquals([answer.id, answer.machine], [started.id, machine.alias]);
    assertMatch(answer.output, /\b42\b/);
  },
});

Deno.test({
  name: `${skipped}readiness on another machine is its kernel's: a pause does not end a step`,
  ...onSharedMachine,
  async fn() {
    const { portal, started } = await remotePython();
    await using _ = portal;
    const paused = await portal.call("process_write", {
      id: started.id,
      content: "import time; print('a'); time.sleep(0.8); print('b')\n",
    });
    assertMatch(paused.output, /a\s+b/);
  },
});

Deno.test({
  name: `${skipped}a long wait on another machine reports its progress here, its state structured`,
  ...onSharedMachine,
  async fn() {
    const { portal, started } = await remotePython();
    await using _ = portal;
    const notes: { message?: string; _meta?: Record<string, unknown> }[] = [];
    await portal.client.callTool(
      {
        name: "process_write",
        arguments: { id: started.id, content: "import time; time.sleep(2.5)\n" },
      },
      undefined,
      { onprogress: (note: { message?: string }) => notes.push(note) },
    );
    assert(notes.length > 0, "progress came through");
    assertMatch(notes[0].message ?? "", /^waited \d s of 10 s; running/);
    assertEquals(notes[0]._meta?.["io.portal/state"], "running");
  },
});

Deno.test({
  name: `${skipped}a kept remote program is in process_list and portal ps, with its machine`,
  ...onSharedMachine,
  async fn() {
    const { machine, portal, started } = await remotePython({ keep: true, name: "calc" });
    await using _ = portal;
    const { processes } = await portal.call("process_list");
    const calc = processes.find((p: { id: number }) => p.id === started.id);
    assertEquals([calc?.machine, calc?.name, calc?.status], [machine.alias, "calc", "running"]);
    const ps = await runCli(portal.dir, ["ps"]);
    assertMatch(
      ps.stdout,
      new RegExp(`^${started.id}\\s+calc\\s.*python3\\s+${machine.alias}$`, "m"),
    );
    await portal.call("process_kill", { id: started.id });
  },
});

Deno.test({
  name:
    `${skipped}portal attach ID here names MACHINE:ID, which joins it from a terminal; Ctrl+] leaves`,
  ...onSharedMachine,
  async fn() {
    const { machine, portal, started } = await remotePython({ keep: true, name: "joined" });
    await using _ = portal;
    // Its id and name here lead a person to what that machine knows it by (its own id).
    const said = await Promise.all([String(started.id), "joined"].map(async (target) => {
      const run = await runCli(portal.dir, ["attach", target]);
      assertEquals(run.code, 1, run.stderr);
      return run.stderr.match(/runs on calcbox: `portal attach (calcbox:\d+)` joins it there/)?.[1];
    }));
    assert(said[0] !== undefined && said[1] === said[0], JSON.stringify(said));
    const env = await serverEnv(portal.dir, { env: { PORTAL_SSH_COMMAND: machine.sshCommand } });
    await using pane = await Pane.open(portal.dir, [
      Deno.execPath(),
      ...["run", "-A", MAIN, "attach", said[0]],
    ], env);
    await pane.until("the banner and the prompt", (t) => t.includes("attached to joined"));
    await pane.keys("print(6*7+1)", "Enter");
    await pane.until("python's answer", (t) => /^43$/m.test(t));
    await pane.keys("C-]");
    await pane.until("the detach", (t) => /\[exit 0\]/.test(t));
    await portal.call("process_kill", { id: started.id });
  },
});

Deno.test({
  name: `${skipped}a restarted host finds a kept remote program again, by the same id`,
  ...onSharedMachine,
  async fn() {
    const { machine, portal, started } = await remotePython({ keep: true, name: "again" });
    await using _ = portal;
    await portal.call("process_write", { id: started.id, content: "x = 6*7\n" });
    await portal.client.close();
    await endHost(portal.dir);
    // A new host of the same database: the row says where the program runs.
    await using next = await Portal.start({
      dir: portal.dir,
      env: { PORTAL_SSH_COMMAND: machine.sshCommand },
    });
    const { processes } = await next.call("process_list");
    const found = processes.find((p: Json) => p.id === started.id);
    assertEquals([found?.machine, found?.name, found?.status], [machine.alias, "again", "running"]);
    const step = await next.call("process_write", { id: started.id, content: "x\n" });
    assertMatch(step.output, /\b42\b/);
    const ps = await runCli(portal.dir, ["ps"]);
    assertMatch(ps.stdout, new RegExp(`^${started.id}\\s+again\\s.*${machine.alias}$`, "m"));
    // The watch page lists it too, on its machine.
    const { url } = await next.call("process_watch");
    await using page = openWatchSocket(new URL(url).origin, linkToken(url));
    const { processes: rows } = await page.next("processes") as { processes: Json[] };
    assertEquals(rows.find((p) => p.id === started.id)?.machine, machine.alias);
    await next.call("process_kill", { id: started.id });
  },
});

/**
 * A port nobody listens on: tcpmux's, privileged, which no test binds. A port found free now could
 * be taken by another suite on the machine before ssh tries it ("Connection closed", not refused).
 */
const CLOSED_PORT = 1;

/** `tool(args)`'s error message, and how long it took to come. */
async function timedFailure(portal: Portal, args: Record<string, unknown>) {
  const started = performance.now();
  const message = await portal.fail("process_start", { command: "true", ...args });
  const ms = performance.now() - started;
  // The bound on every such error (ssh's ConnectTimeout is 10 s of it).
  assert(ms < 15_000, `${ms} ms for: ${message}`);
  return message;
}

Deno.test({
  name: `${skipped}unreachable, a key refused, no portal there: clear errors within 15 s`,
  ...onSharedMachine,
  async fn() {
    const machine = await sharedMachine();
    const config = `${machine.configFile}.errors`;
    await Deno.writeTextFile(
      config,
      (await Deno.readTextFile(machine.configFile)) +
        [
          "Host nowhere",
          "  HostName 127.0.0.1",
          `  Port ${CLOSED_PORT}`,
          "Host stranger",
          "  HostName 127.0.0.1",
          `  Port ${machine.sshd.port}`,
          `  User ${machine.user}`,
          `  IdentityFile ${config}.missing-key`,
          "  StrictHostKeyChecking no",
          "  UserKnownHostsFile /dev/null",
          "",
        ].join("\n"),
    );
    // One server for the four: the config names each machine, and the remote command is used
    // only once ssh has logged in, which the first two never do.
    await using portal = await Portal.start({
      env: { PORTAL_SSH_COMMAND: `ssh -F ${config}`, PORTAL_REMOTE_COMMAND: "no-portal-here" },
    });
    const unreachable = await timedFailure(portal, { machine: "nowhere" });
    assertMatch(unreachable, /ssh cannot reach nowhere: .*Connection refused/);
    const refused = await timedFailure(portal, { machine: "stranger" });
    assertMatch(refused, /could not log in to stranger: .*Permission denied/);
    assertMatch(refused, /ssh-copy-id stranger.*secret_prompt/);
    const bad = await portal.fail("process_start", {
      command: "true",
      machine: "-oProxyCommand=x",
    });
    assertMatch(bad, /not an ssh destination/);
    const missing = await timedFailure(portal, { machine: machine.alias });
    assertMatch(missing, /calcbox has no Portal to run: .*no-portal-here: command not found/);
    assertMatch(missing, /portal remote install calcbox.*PORTAL_REMOTE_COMMAND/);
  },
});

/** The pids of the local ssh processes whose control socket is in `dir`'s runtime directory. */
function linkPids(dir: string): number[] {
  // The links' ssh (/usr/bin/ssh …) and the connection's master (ssh: <socket> [mux]).
  return pidsByCommandLine((cmdline) =>
    /^(\S*\/)?ssh[\0:]/.test(cmdline) && cmdline.includes(`${dir}/run/portal/ssh-`)
  );
}

Deno.test({
  name: `${skipped}a dropped link ends unkept remote programs; kept calc answers a new client`,
  ignore,
  async fn() {
    await using machine = await remoteMachine();
    const env = { PORTAL_SSH_COMMAND: machine.sshCommand };
    await using portal = await Portal.start({ env });
    const at = { machine: machine.alias };
    const calc = await portal.call("process_start", {
      command: "python3",
      ...at,
      pty: true,
      keep: true,
      name: "calc",
      wait: "ready",
    });
    await portal.call("process_write", { id: calc.id, content: "x = 6*7\n" });
    const nap = await portal.call("process_start", { command: "sleep", args: ["600"], ...at });
    assert(pidAlive(nap.os_pid), "the remote sleep runs");
    const pids = linkPids(portal.dir);
    assert(pids.length > 0, "an ssh carries the link");
    for (const pid of pids) Deno.kill(pid, "SIGKILL");
    // The remote door's connection ended: its unkept program ends there, as a local client's.
    await waitFor(`remote sleep ${nap.os_pid} to end`, () => !pidAlive(nap.os_pid), {
      timeoutMs: 5000,
    });
    assert(pidAlive(calc.os_pid), "the kept python lives");
    const again = await portal.call("process_write", { id: calc.id, content: "x\n" });
    assertMatch(again.output, /\b42\b/);
    const listed = (await portal.call("process_list")).processes.map((p: { id: number }) => p.id);
    assertEquals([listed.includes(calc.id), listed.includes(nap.id)], [true, false]);
    const localHost = hostPid(portal.dir)!;
    await portal.client.close();
    // No client, no kept local process: the host stays for the kept remote one, and says so.
    await waitFor("the host to stay for calc", () => hostLogs(portal.dir), {
      until: (log) => log.includes("no client: the host stays for its kept processes (on other"),
    });

    await using next = await Portal.start({ env, dir: portal.dir });
    assertEquals(hostPid(portal.dir), localHost, "the same host: it stayed");
    const { processes } = await next.call("process_list");
    const found = processes.find((p: { name: string }) => p.name === "calc");
    assertEquals([found?.machine, found?.status], [machine.alias, "running"]);
    const step = await next.call("process_write", { id: found.id, content: "x + 1\n" });
    assertMatch(step.output, /\b43\b/);
    const page = await next.call("process_read", { id: found.id });
    assertMatch(page.records.map((r: { content: string }) => r.content).join(""), /43/);
    await next.call("process_kill", { id: found.id });
    assert(!pidAlive(calc.os_pid), "process_kill ended it on the remote");

    // A machine that is gone says so, with ssh's own message, and the call does not hang.
    const kept = await next.call("process_start", { command: "cat", ...at, keep: true });
    await machine[Symbol.asyncDispose]();
    const gone = await next.fail("process_write", { id: kept.id, content: "x\n" });
    assertMatch(gone, /ssh cannot reach calcbox: .*Connection refused/);
  },
});

Deno.test({
  name: `${skipped}a kept program whose machine is gone is unreachable; the host ends after all`,
  ignore,
  async fn() {
    await using machine = await remoteMachine();
    const env = { PORTAL_SSH_COMMAND: machine.sshCommand, PORTAL_REMOTE_UNREACHABLE_S: "2" };
    await using portal = await Portal.start({ env });
    const kept = await portal.call("process_start", {
      command: "sleep",
      args: ["600"],
      machine: machine.alias,
      keep: true,
    });
    await machine[Symbol.asyncDispose]();
    // process_list asks the machine: it says since when and why it is unreachable.
    const { processes } = await portal.call("process_list");
    const line = processes.find((p: Json) => p.id === kept.id);
    assertEquals(line?.status, "running");
    assertMatch(line?.unreachable ?? "", /^since \S+: ssh cannot reach calcbox/);
    // A person's `portal ps` says so too.
    const ps = await runCli(portal.dir, ["ps"]);
    assertMatch(ps.stdout, new RegExp(`^${kept.id}\\s+-\\s+yes\\s+unreachable\\s`, "m"));
    // With no client, the host looks again, and ends once the machine was silent 2 s.
    const host = hostPid(portal.dir)!;
    await portal.client.close();
    await waitFor("the host to end", () => !pidAlive(host), { timeoutMs: 15_000 });
  },
});

Deno.test({
  name:
    `${skipped}a policy's machines, the control socket in the private dir, no remote watch token`,
  ...onSharedMachine,
  async fn() {
    const machine = await sharedMachine();
    const policy = `${machine.configFile}.policy.json`;
    await Deno.writeTextFile(policy, JSON.stringify({ mode: "full", machines: [machine.alias] }));
    await using portal = await Portal.start({
      env: { PORTAL_SSH_COMMAND: machine.sshCommand, PORTAL_POLICY: policy },
      capabilities: { elicitation: { form: {} } },
    });
    const refused = await portal.fail("process_start", { command: "true", machine: "elsewhere" });
    assertMatch(refused, /policy \(.*policy\.json\) lets no program run on "elsewhere".*machines/);
    // Two calls at once open one link between them.
    const sleep = { command: "sleep", args: ["60"], machine: machine.alias };
    const [nap, twin] = await Promise.all([
      portal.call("process_start", sleep),
      portal.call("process_start", sleep),
    ]);
    const clients = linkPids(portal.dir).filter((pid) =>
      !Deno.readTextFileSync(`/proc/${pid}/cmdline`).includes("[mux]")
    );
    assertEquals(clients.length, 1, "one ssh client: one link");
    await portal.call("process_kill", { id: twin.id });
    // Everything of the link is in the runtime directory, which only this user may enter.
    const runtime = `${portal.dir}/run/portal`;
    assertEquals(Deno.statSync(runtime).mode! & 0o777, 0o700);
    const sockets = [...Deno.readDirSync(runtime)].filter((e) => e.name.startsWith("ssh-"));
    assertEquals(sockets.length, 1, "one control socket: one connection to the machine");
    // The remote watch page's link is never fetched: its token stays on that machine.
    const watch = await portal.fail("process_watch", { id: nap.id });
    assertMatch(watch, new RegExp(`runs on ${machine.alias}: its watch page is there`));
    // This client's watch page lists it, with its machine (its screen is on that machine's page).
    const { url } = await portal.call("process_watch");
    await using page = openWatchSocket(new URL(url).origin, linkToken(url));
    const { processes: rows } = await page.next("processes") as { processes: Json[] };
    const row = rows.find((p) => p.id === nap.id);
    assertEquals([row?.machine, row?.command, row?.status], [machine.alias, "sleep", "running"]);
    const inspect = await portal.call("process_inspect", { id: nap.id });
    assertEquals(inspect.machine, machine.alias);
    assert(!JSON.stringify(inspect).includes("token"), JSON.stringify(inspect));
    // secret_prompt at a remote prompt asks this client's person; the remote types it.
    const asked: string[] = [];
    portal.client.setRequestHandler(ElicitRequestSchema, (request: ElicitRequest) => {
      asked.push(request.params.message);
      return { action: "accept", content: { secret: "hunter2" } };
    });
    const login = await portal.call("process_start", {
      command: "python3",
      args: ["-c", "import getpass; print('match' if getpass.getpass() == 'hunter2' else 'no')"],
      machine: machine.alias,
      pty: true,
      wait: "ready",
    });
    assertEquals(login.state, "waiting_for_secret");
    const typed = await portal.call("process_write", {
      id: login.id,
      secret_prompt: "the db password",
      keys: ["Enter"],
      wait: "exit",
    });
    assertMatch(typed.output, /match/, JSON.stringify(typed));
    assertEquals(asked.length, 1);
    assertMatch(asked[0], /the db password/);

    // process_kill_all reaches the programs this client started there.
    const killed = await portal.call("process_kill_all");
    assertEquals(killed.killed, [nap.id]);
    assert(!pidAlive(nap.os_pid), "the remote sleep is gone");
    // An error about the remote process says which it is here, the remote's words unchanged.
    const ended = await portal.fail("process_write", { id: nap.id, content: "x" });
    assertMatch(
      ended,
      new RegExp(`^Process ${nap.id} is process \\d+ on calcbox, which answered: `),
    );
  },
});

Deno.test({
  name: `${skipped}portal attach MACHINE:NAME runs nothing but portal attach there`,
  ...onSharedMachine,
  async fn() {
    const machine = await sharedMachine();
    const dir = await Deno.makeTempDir({ prefix: "portal-attach-" });
    const marker = `/tmp/portal-attach-${crypto.randomUUID()}`;
    try {
      const run = await runCli(dir, ["attach", `${machine.alias}:nosuch;touch ${marker}`], {
        PORTAL_SSH_COMMAND: machine.sshCommand,
      });
      assertEquals(run.code, 1, run.stderr);
      assertMatch(run.stderr, /is neither a process id nor a name .*nothing was run on calcbox/);
      // The command ended: had the name reached the remote shell, the file would be there now.
      const made = await Deno.stat(marker).then(() => true, () => false);
      assert(!made, `the remote shell ran: ${marker} exists`);
    } finally {
      await Deno.remove(marker).catch(() => {});
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("PORTAL_MACHINE_<name>: a transport that is not ssh (here: a second Portal on stdio)", async () => {
  await using portal = await Portal.start();
  // The transport gets no marked secret (it would exit 1 before Portal if it did).
  const box =
    `sh -c 'test -z "$PORTAL_SECRET_PW" && exec env PORTAL_DB_PATH=${portal.dir}/box.db ` +
    `${Deno.execPath()} run -A ${MAIN} --no-host'`;
  await using client = await Portal.start({
    dir: portal.dir,
    env: { PORTAL_MACHINE_box: box, PORTAL_SECRET_PW: "hunter2" },
  });
  // A local process first: the ids here and there differ.
  await client.spawn("true");
  const reply = await client.call("process_start", {
    command: "sh",
    args: ["-c", "echo from the box"],
    machine: "box",
    wait: "exit",
  });
  assertEquals(reply.machine, "box");
  assertMatch(reply.output, /from the box/);
  const { processes } = await client.call("process_list");
  assertEquals(processes.find((p: { id: number }) => p.id === reply.id)?.machine, "box");
  // Every reply names the process by the id this client knows, the last one too.
  const cleaned = await client.call("process_cleanup", { id: reply.id });
  assertEquals([cleaned.id, cleaned.machine], [reply.id, "box"]);
  // Unset, the same name is an ssh destination, which ssh cannot resolve.
  const unknown = await portal.fail("process_start", { command: "true", machine: "box" });
  assertMatch(unknown, /ssh cannot reach box/);
});

Deno.test("deprecated names: process_start's host and PORTAL_HOST_<name> reach a machine", async () => {
  await using portal = await Portal.start();
  const box = `env PORTAL_DB_PATH=${portal.dir}/box.db ${Deno.execPath()} run -A ${MAIN} --no-host`;
  await using client = await Portal.start({ dir: portal.dir, env: { PORTAL_HOST_box: box } });
  const old = await client.call("process_start", { command: "true", host: "box", wait: "exit" });
  assertEquals(old.machine, "box");
  // Both, naming the same machine, are one; naming two, a refusal that says which to keep.
  const both = { command: "true", machine: "box", host: "box", wait: "exit" };
  assertEquals((await client.call("process_start", both)).machine, "box");
  const two = await client.fail("process_start", { ...both, host: "other" });
  assertMatch(two, /machine "box" and host "other" name two machines: give machine alone/);
});
