/**
 * A person's policy (PORTAL_POLICY), enforced by the kernel through real
 * bubblewrap: what programs may write, read, reach and run, from pipes and
 * terminals, whatever way they try; what the agent and `portal doctor` see;
 * and a policy Portal will not run under.
 */
import { type Json, Portal } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { runCli } from "../helpers/cli.ts";
import { hostDir } from "../helpers/portal.ts";
import { pythonAnswers } from "../helpers/python_repl.ts";
import { sessionMembers } from "../helpers/processes.ts";
import { HAS_CHROMIUM, newPage, openBrowser, screenshot } from "../helpers/browser.ts";
import { places, policyTest, run, startUnder } from "../helpers/policy.ts";
import { exists } from "../../dev/exists.ts";

/**
 * One server under the rules most tests need, for those that keep no state
 * between them (each starts its own programs and looks at nothing of
 * another's): workspace-write on a workspace with its policy file inside,
 * no network, `nc` denied, a key beside the workspace and a token in it
 * hidden. Each rule is tested by its own test; the others it holds change
 * nothing they look at. The first test to need it starts it; it ends after
 * the file's last test (a start saved per test, about a CPU-second).
 */
function boxed(): ReturnType<typeof startBoxed> {
  return shared ??= startBoxed();
}
let shared: ReturnType<typeof startBoxed> | undefined;
Deno.test.afterAll(async () => {
  const box = await shared?.catch(() => undefined);
  await box?.portal.close();
  await box?.[Symbol.asyncDispose]();
});

async function startBoxed() {
  const at = await places();
  const ssh = `${at.root}/dot-ssh`;
  await Deno.mkdir(ssh);
  await Deno.writeTextFile(`${ssh}/id_ed25519`, "PRIVATE KEY\n");
  await Deno.writeTextFile(`${at.workspace}/token`, "TOKEN\n");
  const file = `${at.workspace}/policy.json`;
  const portal = await startUnder(file, {
    mode: "workspace-write",
    workspace: [at.workspace],
    network: "none",
    commands: { deny: ["nc"] },
    hide: [ssh, `${at.workspace}/token`],
  }, { cwd: at.workspace });
  return { ...at, ssh, file, portal };
}

policyTest("workspace-write: no way of writing outside the workspace succeeds", async () => {
  const { workspace: ws, outside: out, file, portal } = await boxed();
  const before = await Deno.readTextFile(file);
  const attempts: Record<string, string> = {
    redirect: `echo x > ${out}/redirect`,
    "sh -c": `sh -c 'echo x > ${out}/shc'`,
    "/bin/sh by path": `/bin/sh -c 'echo x > ${out}/binsh'`,
    "python open()": `python3 -c "open('${out}/python', 'w').write('x')"`,
    "symlink to /etc": `ln -s /etc ${ws}/etc-link && echo x > ${ws}/etc-link/portal-policy-probe`,
    "/proc/self/root": `echo x > /proc/self/root${out}/procroot`,
    "relative from /": `cd / && echo x > ${out.slice(1)}/relative`,
    "$()": `$(printf ec)$(printf ho) x > ${out}/subst`,
    "the policy file": `echo '{"mode":"full"}' > ${file}`,
    "the policy file, moved": `mv ${file} ${ws}/moved.json`,
  };
  for (const [how, script] of Object.entries(attempts)) {
    const { code, output } = await run(portal, script);
    assert(code !== 0, `${how} succeeded: ${output}`);
  }
  assertEquals([...Deno.readDirSync(out)].map((e) => e.name), [], "nothing was written outside");
  assert(!exists("/etc/portal-policy-probe"), "nothing was written into /etc");
  assertEquals(await Deno.readTextFile(file), before, "the policy file is unchanged");
  const inside = await run(portal, `echo fine > ${ws}/inside && cat ${ws}/inside`);
  assertEquals([inside.code, await Deno.readTextFile(`${ws}/inside`)], [0, "fine\n"]);
  // A name no one else uses: the machine's /tmp is shared with other runs and users.
  const scratch = `/tmp/portal-policy-scratch-${crypto.randomUUID()}`;
  const tmp = await run(portal, `echo scratch > ${scratch} && cat ${scratch}`);
  assertEquals([tmp.code, tmp.output.trim()], [0, "scratch"], "its own /tmp is writable");
  assert(!exists(scratch), "…and private");
});

policyTest("read-only: nothing is writable but a private /tmp", async () => {
  await using at = await places();
  await using portal = await startUnder(`${at.root}/policy.json`, { mode: "read-only" }, {
    cwd: at.workspace,
  });
  const { code } = await run(portal, `echo x > ${at.workspace}/file`);
  assert(code !== 0 && !exists(`${at.workspace}/file`), "the working directory is read-only");
  const inspected = await portal.call("process_inspect", {
    id: (await portal.call("process_list")).processes[0].id,
  });
  assertEquals(inspected.policy.mode, "read-only");
});

policyTest("network none: no connection to a listener on 127.0.0.1", async () => {
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepting = (async () => {
    for await (const conn of listener) conn.close();
  })().catch(() => {});
  const { port } = listener.addr;
  const connect = `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${port}), 3)"`;
  // The same command outside any sandbox connects: what stops it below is the policy.
  const free = await new Deno.Command("bash", { args: ["-c", connect] }).output();
  assertEquals(free.code, 0, "without a policy it connects");
  const { code, output } = await run((await boxed()).portal, connect);
  assert(code !== 0, `it connected under network: none: ${output}`);
  assertMatch(output, /Permission denied/);
  listener.close();
  await accepting;
});

policyTest(
  "network loopback: the sandbox's own lo only; none: no internet socket at all",
  async () => {
    await using at = await places();
    using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const outside =
      `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${listener.addr.port}), 3)"`;
    const inside = "python3 -c \"import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); " +
      "s.listen(); socket.create_connection(s.getsockname(), 3); print('own lo')\"";
    const rules = { mode: "workspace-write", workspace: [at.workspace] };
    {
      await using portal = await startUnder(`${at.root}/loopback.json`, {
        ...rules,
        network: "loopback",
      }, { cwd: at.workspace });
      assert((await run(portal, outside)).code !== 0, "loopback reached the machine's listener");
      assertEquals(await run(portal, inside), { code: 0, output: "own lo\n" });
    }
    const none = await run((await boxed()).portal, inside);
    assert(none.code !== 0, `none made a socket: ${none.output}`);
    assertMatch(none.output, /PermissionError: \[Errno 13\]/);
    listener.close();
  },
);

policyTest("hide: a hidden file or directory cannot be read, and stays as it was", async () => {
  const { ssh, portal, ...at } = await boxed();
  const key = await run(portal, `cat ${ssh}/id_ed25519`);
  assert(key.code !== 0 && !key.output.includes("PRIVATE"), `read: ${key.output}`);
  const token = await run(portal, `cat ${at.workspace}/token; echo x > ${at.workspace}/token`);
  assert(!token.output.includes("TOKEN"), `read: ${token.output}`);
  assertEquals(await Deno.readTextFile(`${ssh}/id_ed25519`), "PRIVATE KEY\n");
  assertEquals(await Deno.readTextFile(`${at.workspace}/token`), "TOKEN\n");
});

policyTest("commands.deny: refused at process_start, and exits 126 inside", async () => {
  const { file, portal } = await boxed();
  const refusal = await portal.fail("process_start", { command: "nc", args: ["-h"] });
  assertStringIncludes(refusal, `policy ${file} denies "nc"`);
  for (const way of ["nc -h", "/usr/bin/nc -h", "$(readlink -f /usr/bin/nc) -h", "sh -c 'nc -h'"]) {
    const { code, output } = await run(portal, way);
    assertEquals(code, 126, `${way}: ${output}`);
    assertMatch(output, /denied by the person's policy/);
  }
});

policyTest("terminals inside: python, vim writing a file, job control", async () => {
  const { portal, ...at } = await boxed();
  const { step } = await pythonAnswers(portal);
  assertEquals(step.output, "42\n>>> ");
  const vim = await portal.call("process_start", {
    command: "vim",
    args: ["-u", "NONE", "-N", `${at.workspace}/note.txt`],
    pty: true,
    wait: "ready",
  });
  await portal.call("process_write", {
    id: vim.id,
    content: "ihello from vim\x1b:wq\r",
    wait: "exit",
  });
  assertEquals(await Deno.readTextFile(`${at.workspace}/note.txt`), "hello from vim\n");
  const bash = await portal.startBash();
  const sleeping = await portal.call("process_write", {
    id: bash.id,
    content: "sleep 30\n",
    wait_ms: 500,
  });
  assertEquals(sleeping.state, "running");
  const stopped = await portal.call("process_write", { id: bash.id, keys: ["ctrl+z"] });
  assertMatch(stopped.output, /Stopped\s+sleep 30/);
  const jobs = await portal.call("process_write", { id: bash.id, content: "jobs\n" });
  assertMatch(jobs.output, /\[1\]\+\s+Stopped\s+sleep 30/);
});

policyTest("readiness inside: pipes, a program a shell started, a stopped program", async () => {
  const { portal } = await boxed();
  // bwrap and its init share the program's group: only the program's own wait counts.
  for (const pty of [true, false]) {
    const { id, state } = await portal.call("process_start", {
      command: "python3",
      args: ["-q", "-i"],
      pty,
      wait: "ready",
    });
    assertEquals(state, "waiting_for_input", `pty: ${pty}`);
    await portal.call("process_signal", { id, signal: "SIGSTOP" });
    const stopped = await portal.call("process_read_new", { id, wait: "ready" });
    assertEquals([stopped.state, stopped.reason], ["stopped", "ready"], `pty: ${pty}`);
    await portal.call("process_signal", { id, signal: "SIGCONT" });
    const step = await portal.call("process_write", { id, content: "6*7\n" });
    assertEquals([step.state, step.output], ["waiting_for_input", "42\n>>> "], `pty: ${pty}`);
  }
  const bash = await portal.startBash();
  await portal.call("process_write", { id: bash.id, content: "python3 -q\n" });
  const inner = await portal.call("process_write", { id: bash.id, content: "6*7\n" });
  assertEquals([inner.state, inner.output], ["waiting_for_input", "42\n>>> "]);
});

policyTest("process_kill and a killed host leave nothing of a sandbox running", async () => {
  await using at = await places();
  await using dir = await hostDir();
  const portal = await startUnder(`${at.root}/policy.json`, {
    mode: "workspace-write",
    workspace: [at.workspace],
  }, { cwd: at.workspace, dir: dir.path });
  try {
    const killed = await portal.call("process_start", {
      command: "bash",
      args: ["-c", "sleep 300 & sleep 300"],
    });
    await waitFor("the sandbox to hold both sleeps", () => sessionMembers([killed.os_pid]), {
      until: (members) => members.length >= 4,
    });
    await portal.call("process_kill", { id: killed.id });
    await waitFor("nothing of the killed one to run", () => sessionMembers([killed.os_pid]), {
      until: (members) => members.length === 0,
    });
    const orphan = await portal.call("process_start", {
      command: "bash",
      args: ["-c", "sleep 300 & sleep 300"],
    });
    await waitFor("the second sandbox", () => sessionMembers([orphan.os_pid]), {
      until: (members) => members.length >= 4,
    });
    Deno.kill(portal.serverPid, "SIGKILL");
    await waitFor(
      "nothing of it to run once the host died",
      () => sessionMembers([orphan.os_pid]),
      {
        until: (members) => members.length === 0,
        timeoutMs: 10_000,
      },
    );
  } finally {
    await portal.close().catch(() => {});
  }
});

policyTest("process_inspect and the watch page name the rules a process runs under", async () => {
  await using at = await places();
  await using portal = await startUnder(`${at.root}/policy.json`, {
    mode: "workspace-write",
    workspace: [at.workspace],
    network: "loopback",
  }, { cwd: at.workspace });
  const { id } = await portal.call("process_start", { command: "sleep", args: ["300"] });
  const { policy } = await portal.call("process_inspect", { id });
  assertEquals([policy.file, policy.mode, policy.network, policy.workspace], [
    `${at.root}/policy.json`,
    "workspace-write",
    "loopback",
    [at.workspace],
  ]);
  await using browser = await openBrowser();
  const page = await newPage(browser);
  await page.goto((await portal.call("process_watch", { id })).url);
  const meta = await waitFor(
    "the list to name the policy",
    // Until the list is drawn there is no such element: an empty text, not an error.
    () => page.$$eval(".process .meta", (elements) => elements.map((e) => e.textContent).join()),
    {
      until: (text) => text.includes("policy"),
    },
  );
  assertStringIncludes(meta, "policy: workspace-write, network loopback");
  await screenshot(page, "policy");
}, HAS_CHROMIUM);

policyTest("a client under a policy sees only processes under the same rules", async () => {
  await using at = await places();
  await using dir = await hostDir();
  {
    await using free = await Portal.start({ cwd: at.workspace, dir: dir.path });
    await free.call("process_start", { command: "sleep", args: ["300"], keep: true, name: "free" });
  }
  const rules = { mode: "workspace-write", workspace: [at.workspace] };
  {
    await using confined = await startUnder(`${at.root}/policy.json`, rules, {
      cwd: at.workspace,
      dir: dir.path,
    });
    const names = (await confined.call("process_list")).processes.map((p: Json) => p.name);
    assert(!names.includes("free"), `a confined client sees an unconfined program: ${names}`);
    await confined.call("process_start", {
      command: "sleep",
      args: ["300"],
      keep: true,
      name: "boxed",
    });
  }
  await using again = await startUnder(`${at.root}/policy.json`, rules, {
    cwd: at.workspace,
    dir: dir.path,
  });
  const names = (await again.call("process_list")).processes.map((p: Json) => p.name);
  assertEquals(names, ["boxed"]);
  await again.call("process_kill_all");
});

policyTest(
  "a policy Portal cannot run under stops it with exit 2, naming what is wrong",
  async () => {
    await using dir = await tempDir("portal-policy-cli-");
    const cases: [string, string, RegExp][] = [
      [
        "bad.json",
        '{\n  "mode": "read-only",\n  "network": "sometimes"\n}',
        /line 3: network: "sometimes" is not one of/,
      ],
      ["unknown.json", '{ "modes": "full" }', /modes: "full" is not a policy key/],
      [
        "bad.toml",
        'mode = "read-only"\nhide = "~/.ssh"\nnetwork = 3\n',
        /line 3: network: 3 is not one of/,
      ],
      ["broken.toml", 'mode = "read-only"\nhide = [\n', /line \d+: not valid TOML/],
      [
        "missing.json",
        `{ "workspace": ["${dir.path}/nowhere"] }`,
        /workspace: ".*nowhere" is not an existing directory/,
      ],
    ];
    for (const [name, text, message] of cases) {
      await Deno.writeTextFile(`${dir.path}/${name}`, text);
      const run = await runCli(dir.path, ["--policy", `${dir.path}/${name}`]);
      assertEquals(run.code, 2, `${name}: ${run.stderr}`);
      assertStringIncludes(run.stderr, `${dir.path}/${name}`);
      assertMatch(run.stderr, message);
    }
  },
);

policyTest("portal doctor prints the policy in force", async () => {
  await using dir = await tempDir("portal-policy-doctor-");
  const file = `${dir.path}/policy.toml`;
  await Deno.writeTextFile(file, 'mode = "read-only"\nnetwork = "none"\n');
  const run = await runCli(dir.path, ["doctor"], { PORTAL_POLICY: file });
  assertMatch(
    run.stdout,
    /policy +ok +\{"file":".*policy\.toml","mode":"read-only".*"network":"none"/,
  );
  assertStringIncludes(run.stdout, "enforced by the kernel (bubblewrap)");
});
