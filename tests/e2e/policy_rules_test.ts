/**
 * The rules of a person's policy hold against what its own programs do,
 * with real bubblewrap and real servers: the policy file cannot be renamed,
 * replaced or pointed elsewhere (for the next client, or a new host); a
 * denied command runs under no other name of its file and whatever PATH the
 * agent passes; a hidden path reads as missing in Portal's own errors; a
 * process a later host restores keeps the rules it ran under.
 */
import { chown, endHost, Portal } from "../../dev/portal_client.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { runCli } from "../helpers/cli.ts";
import { holds, places, policyTest, run, type Runner, startUnder } from "../helpers/policy.ts";
import { hostDir } from "../helpers/portal.ts";

/** What a program does to put other rules in the file's place, each in a way of its own. */
function replacements(dir: string, file: string): Record<string, string> {
  const full = `echo '{"mode":"full"}' > ${file}`;
  return {
    "its folder renamed": `mv ${dir} ${dir}.old && mkdir ${dir} && ${full}`,
    "its folder removed": `rm -rf ${dir} ; mkdir -p ${dir} && ${full}`,
    "its folder renamed by python": `python3 -c "import os; os.rename('${dir}', '${dir}.py')"`,
    "the file renamed": `mv ${file} ${file}.old && ${full}`,
    "the file replaced by a link": `ln -sf /dev/null ${file}`,
    "the file written": full,
  };
}

/** Asserts that no way of {@link replacements} succeeds under `portal`, and the file is as it was. */
async function assertUnchangeable(portal: Portal, dir: string, file: string): Promise<void> {
  const before = await Deno.readTextFile(file);
  for (const [how, script] of Object.entries(replacements(dir, file))) {
    const { code, output } = await run(portal, script);
    assert(code !== 0, `${how} succeeded: ${output}`);
    assertEquals(await Deno.readTextFile(file), before, `${how} changed the policy file`);
  }
}

/** The rules `portal`'s programs run under, as process_inspect shows them. */
async function rulesOf(portal: Portal): Promise<{ mode: string; hide?: string[] }> {
  const { id } = await portal.call("process_start", { command: "true", wait: "exit" });
  return (await portal.call("process_inspect", { id })).policy;
}

/** Gives what a test made under `root` to the user its server runs as, if not this one. */
async function handOver(root: string, runner: Runner): Promise<void> {
  if (runner.runAs) await chown(root, runner.runAs.name);
}

holds(
  "the policy file in the workspace: its folder cannot be renamed or replaced",
  async (runner) => {
    await using at = await places(runner.runAs);
    await using dir = await hostDir();
    const folder = `${at.workspace}/.portal`;
    const file = `${folder}/policy.json`;
    const secret = `${at.workspace}/secret.txt`;
    await Deno.mkdir(folder);
    await Deno.writeTextFile(secret, "SECRET\n");
    await handOver(at.root, runner);
    const rules = { mode: "workspace-write", workspace: [at.workspace], hide: [secret] };
    const options = { cwd: at.workspace, dir: dir.path, user: runner.runAs };
    {
      await using first = await startUnder(file, rules, options);
      await assertUnchangeable(first, folder, file);
      // The next client of the same host reads the file again: the same rules.
      await using next = await Portal.start({ env: { PORTAL_POLICY: file }, ...options });
      assertEquals((await rulesOf(next)).mode, "workspace-write");
      assert(!(await run(next, `cat ${secret}`)).output.includes("SECRET"), "the secret was read");
    }
    // A new host, as after a restart: the same file, the same rules.
    await endHost(dir.path);
    await using restarted = await Portal.start({ env: { PORTAL_POLICY: file }, ...options });
    assertEquals((await rulesOf(restarted)).hide, [secret]);
    assertEquals(await Deno.readTextFile(file), JSON.stringify(rules, null, 2));
  },
);

holds("full mode: no folder above the policy file can be renamed", async (runner) => {
  await using at = await places(runner.runAs);
  // As ~/.config/portal/policy.json, in a home the programs may write (full: all of it).
  const config = `${at.root}/home/.config`;
  const file = `${config}/portal/policy.json`;
  await Deno.mkdir(`${config}/portal`, { recursive: true });
  const secret = `${at.outside}/secret.txt`;
  await Deno.writeTextFile(secret, "SECRET\n");
  await handOver(at.root, runner);
  await using portal = await startUnder(file, { mode: "full", hide: [secret] }, {
    cwd: at.workspace,
    user: runner.runAs,
  });
  await assertUnchangeable(portal, config, file);
  await assertUnchangeable(portal, `${config}/portal`, file);
  await assertUnchangeable(portal, `${at.root}/home`, file);
  // Its programs still have the person's rights elsewhere: this is full mode.
  assertEquals(await run(portal, `echo x > ${at.root}/home/note && cat ${at.root}/home/note`), {
    code: 0,
    output: "x\n",
  });
});

policyTest(
  "a policy file its programs could point elsewhere or write through is refused (exit 2)",
  async () => {
    await using at = await places();
    const real = `${at.workspace}/real`;
    await Deno.mkdir(real);
    const rules = JSON.stringify({ mode: "workspace-write", workspace: [at.workspace] });
    await Deno.writeTextFile(`${real}/policy.json`, rules);
    // A link inside the workspace on the way to the file: a program could point it elsewhere.
    await Deno.symlink(real, `${at.workspace}/link`);
    const linked = await runCli(at.workspace, ["--policy", `${at.workspace}/link/policy.json`]);
    assertEquals(linked.code, 2, linked.stderr);
    assertStringIncludes(linked.stderr, `through the link "${at.workspace}/link"`);
    assertStringIncludes(linked.stderr, `"${real}/policy.json"`);
    // A second name of the file, in a place the programs may write: they could write through it.
    await Deno.writeTextFile(`${at.outside}/policy.json`, rules);
    await Deno.link(`${at.outside}/policy.json`, `${at.workspace}/alias.json`);
    const linkedTwice = await runCli(at.workspace, ["--policy", `${at.outside}/policy.json`]);
    assertEquals(linkedTwice.code, 2, linkedTwice.stderr);
    assertMatch(linkedTwice.stderr, /has 2 names \(hard links\)/);
    // A mode that lets no one write is no help: a program of its owner may chmod it back.
    await Deno.chmod(`${at.outside}/policy.json`, 0o444);
    const readOnly = await runCli(at.workspace, ["--policy", `${at.outside}/policy.json`]);
    assertEquals(readOnly.code, 2, readOnly.stderr);
    assertMatch(readOnly.stderr, /has 2 names \(hard links\)/);
    // The same file by its own path, with one name, is fine.
    Deno.removeSync(`${at.workspace}/alias.json`);
    const doctor = await runCli(at.workspace, ["doctor"], {
      PORTAL_POLICY: `${real}/policy.json`,
    });
    assertMatch(doctor.stdout, /policy +ok/);
  },
);

/** Another name of the executable `name` (a hard link beside it), e.g. perl → perl5.36.0. */
function otherName(name: string): { path: string; other: string } {
  const path = Deno.realPathSync(`/usr/bin/${name}`);
  const { ino } = Deno.statSync(path);
  const other = [...Deno.readDirSync("/usr/bin")].map((entry) => `/usr/bin/${entry.name}`)
    .find((candidate) => candidate !== path && Deno.lstatSync(candidate).ino === ino);
  assert(other, `${path} has no other name in /usr/bin (Debian's perl-base and gzip have one)`);
  return { path, other };
}

holds("commands.deny: no other name of a denied file runs (hard links)", async (runner) => {
  await using at = await places(runner.runAs);
  const perl = otherName("perl");
  const gunzip = otherName("gunzip");
  await using portal = await startUnder(`${at.root}/policy.json`, {
    mode: "workspace-write",
    workspace: [at.workspace],
    commands: { deny: ["perl", "gunzip"] },
  }, { cwd: at.workspace, user: runner.runAs });
  for (const { other } of [perl, gunzip]) {
    const name = other.split("/").at(-1)!;
    for (const command of [name, other]) {
      const refusal = await portal.fail("process_start", { command, args: ["--version"] });
      assertMatch(refusal, /policy .* denies .*\(commands\.deny: "(perl|gunzip)"\)/);
    }
    for (const way of [`${name} --version`, `${other} --version`, `sh -c '${name} --version'`]) {
      const { code, output } = await run(portal, way);
      assertEquals(code, 126, `${way}: ${output}`);
      assertMatch(output, /denied by the person's policy/);
    }
  }
  // What is not denied still runs.
  assertEquals((await run(portal, "echo ok")).output, "ok\n");
});

holds(
  "commands.deny: a tool only on the server's PATH, whatever PATH is passed",
  async (runner) => {
    await using at = await places(runner.runAs);
    const bin = `${at.root}/bin`;
    await Deno.mkdir(bin);
    const tool = `${bin}/portal-test-tool`;
    await Deno.writeTextFile(tool, "#!/bin/sh\necho TOOL RAN\n", { mode: 0o755 });
    await handOver(at.root, runner);
    await using portal = await startUnder(`${at.root}/policy.json`, {
      mode: "workspace-write",
      workspace: [at.workspace],
      commands: { deny: ["portal-test-tool"] },
    }, {
      cwd: at.workspace,
      env: { PATH: `${bin}:${Deno.env.get("PATH")}` },
      user: runner.runAs,
    });
    const env = { PATH: "/usr/bin:/bin" };
    const refusal = await portal.fail("process_start", { command: tool, env });
    assertStringIncludes(refusal, 'denies "');
    const reply = await portal.call("process_start", {
      command: "bash",
      args: ["-c", tool],
      env,
      wait: "exit",
      wait_ms: 20_000,
    });
    assert(!String(reply.output).includes("TOOL RAN"), `it ran: ${reply.output}`);
    assertEquals(reply.exit_code, 126, reply.output);
  },
);

holds("a hidden path reads as a missing one in every error of process_start", async (runner) => {
  await using at = await places(runner.runAs);
  const ws = at.workspace;
  await Deno.mkdir(`${ws}/dotssh/inner`, { recursive: true });
  await Deno.writeTextFile(`${ws}/id_rsa`, "KEY\n");
  await Deno.mkdir(`${ws}/hbin`);
  for (const path of [`${ws}/hbin/hidden-tool`, `${ws}/hidden-exe`]) {
    await Deno.writeTextFile(path, "#!/bin/sh\necho RAN\n", { mode: 0o755 });
  }
  await handOver(at.root, runner);
  await using portal = await startUnder(`${at.root}/policy.json`, {
    mode: "workspace-write",
    workspace: [ws],
    hide: [`${ws}/id_rsa`, `${ws}/dotssh`, `${ws}/hbin`, `${ws}/hidden-exe`],
  }, { cwd: ws, user: runner.runAs });
  /** The error of `args`, with the name tried in it made the same. */
  const said = async (name: string, args: Record<string, unknown>) =>
    (await portal.fail("process_start", args)).replaceAll(name, "NAME");
  const pairs: [string, string, (name: string) => Record<string, unknown>][] = [
    ["id_rsa", "nosuch", (name) => ({ command: "true", cwd: `${ws}/${name}` })],
    ["dotssh", "nosuch", (name) => ({ command: "true", cwd: `${ws}/${name}` })],
    ["dotssh/inner", "nosuch/inner", (name) => ({ command: "true", cwd: `${ws}/${name}` })],
    ["hidden-exe", "nosuch", (name) => ({ command: `${ws}/${name}` })],
    ["hidden-tool", "nosuch-tool", (name) => ({
      command: name,
      env: { PATH: `${ws}/hbin:/usr/bin:/bin` },
    })],
  ];
  for (const [hidden, missing, args] of pairs) {
    const forHidden = await said(hidden, args(hidden));
    assertEquals(forHidden, await said(missing, args(missing)), `${hidden} is told apart`);
  }
});

policyTest("a process restored by a later host keeps and shows its rules", async () => {
  await using at = await places();
  await using dir = await hostDir();
  const file = `${at.root}/policy.json`;
  const rules = { mode: "read-only", network: "none", hide: [at.outside] };
  const options = { cwd: at.workspace, dir: dir.path };
  let id: number;
  {
    await using portal = await startUnder(file, rules, options);
    ({ id } = await portal.call("process_start", {
      command: "sleep",
      args: ["300"],
      keep: true,
      name: "kept",
    }));
  }
  await endHost(dir.path);
  await using again = await startUnder(file, rules, options);
  const listed = (await again.call("process_list")).processes;
  assertEquals(listed.map((p: { id: number }) => p.id), [id], "it is listed to the same rules");
  const { policy, status } = await again.call("process_inspect", { id });
  assertEquals(status, "killed");
  assertEquals([policy.file, policy.mode, policy.network, policy.hide], [
    file,
    "read-only",
    "none",
    [at.outside],
  ]);
  // A client under other rules does not see it, as while it ran.
  await using other = await startUnder(`${at.root}/other.json`, { mode: "read-only" }, options);
  assertEquals((await other.call("process_list")).processes, []);
});
