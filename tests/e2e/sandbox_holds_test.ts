/**
 * What an adversarial review broke in the policy sandbox (issue 37), each
 * held now, through the real server and real bubblewrap, as root and as an
 * unprivileged user: the kernel's settings and the hostname, a hidden path
 * renamed away, another Portal host of the user (in a runtime directory
 * every sandbox hides, or one none can know of, which refuses it) and
 * Portal's own files, vsock under `network: none` and `loopback`, and a
 * working directory under the private /tmp; and what it found holding (no
 * descriptor, capability, new privilege or outside terminal) still holds.
 */
import { chown, Portal } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { holds, places, run, type Runner, startUnder } from "../helpers/policy.ts";
import { VERSION } from "../../src/version.ts";
import { exists } from "../../dev/exists.ts";

/** What the review wrote (the same values back), and what else a root program could change. */
const WRITES = String.raw`
v=$(cat /proc/sys/kernel/core_pattern); echo "$v" > /proc/sys/kernel/core_pattern && echo WROTE-core_pattern
h=$(cat /proc/sys/kernel/hostname); echo "$h" > /proc/sys/kernel/hostname && echo WROTE-hostname
hostname "$h" 2>/dev/null && echo SET-hostname
[ -e /proc/sysrq-trigger ] && [ -w /proc/sysrq-trigger ] && echo WRITABLE-sysrq-trigger
[ -w /proc/sys/vm/drop_caches ] && echo WRITABLE-drop_caches
find /sys/kernel -maxdepth 2 -type f -perm -u+w -writable 2>/dev/null | sed 's/^/WRITABLE-/'
unshare -Um sh -c 'echo NESTED; umount -l /proc/sys 2>/dev/null && echo UNMOUNTED-proc-sys'
true`;

/** What `script` printed under a Portal of each mode, run as `runner`: [mode, output] pairs. */
async function inEachMode(runner: Runner, script: string): Promise<[string, string][]> {
  await using at = await places(runner.runAs);
  const outputs: [string, string][] = [];
  for (const mode of ["read-only", "workspace-write", "full"]) {
    const rules = mode === "workspace-write" ? { mode, workspace: [at.workspace] } : { mode };
    await using portal = await startUnder(`${at.root}/${mode}.json`, rules, {
      cwd: at.workspace,
      user: runner.runAs,
    });
    outputs.push([mode, (await run(portal, script)).output]);
  }
  return outputs;
}

holds(
  "no program under any mode writes /proc/sys, sysrq-trigger or the hostname",
  async (runner) => {
    const hostname = await Deno.readTextFile("/proc/sys/kernel/hostname");
    for (const [mode, output] of await inEachMode(runner, WRITES)) {
      assertEquals(output.match(/(WROTE|SET|WRITABLE|UNMOUNTED)-\S+/g), null, `${mode}: ${output}`);
      // A user namespace of its own inside has every capability there, over its own view only:
      // the kernel locks the sandbox's mounts, so none can be taken off.
      assertStringIncludes(output, "NESTED", `${mode}: no user namespace was made inside`);
    }
    assertEquals(await Deno.readTextFile("/proc/sys/kernel/hostname"), hostname);
  },
);

holds("a hidden path stays hidden whatever a program renames, moves or links", async (runner) => {
  await using at = await places(runner.runAs);
  const ws = at.workspace;
  await Deno.mkdir(`${ws}/conf`);
  await Deno.mkdir(`${ws}/sub/dotssh`, { recursive: true });
  await Deno.writeTextFile(`${ws}/conf/secret.txt`, "SECRET-FILE\n");
  await Deno.writeTextFile(`${ws}/sub/dotssh/id`, "SECRET-DIR\n");
  const home = `${at.outside}/home`;
  await Deno.mkdir(`${home}/.config`, { recursive: true });
  await Deno.writeTextFile(`${home}/.config/token`, "SECRET-CONFIG\n");
  if (runner.runAs) await chown(at.root, runner.runAs.name);
  {
    await using portal = await startUnder(`${at.root}/ws.json`, {
      mode: "workspace-write",
      workspace: [ws],
      hide: [`${ws}/conf/secret.txt`, `${ws}/sub/dotssh`],
    }, { cwd: ws, user: runner.runAs });
    // One program moves, links and removes what it can; the next reads every name there is.
    await run(
      portal,
      `mv ${ws}/conf ${ws}/conf-moved; mv ${ws}/sub ${ws}/sub-moved; ` +
        `mv ${ws}/sub/dotssh ${ws}/dotssh-moved; mv ${ws}/conf/secret.txt ${ws}/moved.txt; ` +
        `ln ${ws}/conf/secret.txt ${ws}/hard; ln -s ${ws}/conf ${ws}/soft; rm -rf ${ws}/sub`,
    );
    const { output } = await run(
      portal,
      `find ${ws} -type f -exec cat {} +; cat ${ws}/soft/secret.txt; ` +
        // Nor does a user namespace of its own take the mounts off (the kernel locks them).
        `unshare -Um sh -c 'echo NESTED; umount -l ${ws}/conf/secret.txt ${ws}/sub/dotssh; ` +
        `cat ${ws}/conf/secret.txt ${ws}/sub/dotssh/id'`,
    );
    assert(!output.includes("SECRET"), `a hidden path was read: ${output}`);
    assertStringIncludes(output, "NESTED", "no user namespace was made inside");
  }
  {
    await using portal = await startUnder(`${at.root}/full.json`, {
      mode: "full",
      hide: [`${home}/.config`],
    }, { cwd: ws, user: runner.runAs });
    await run(portal, `mv ${home} ${home}-moved; mv ${home}/.config ${home}/config-moved`);
    const { output } = await run(portal, `find ${at.outside} -type f -exec cat {} +`);
    assert(!output.includes("SECRET"), `full mode: a hidden path was read: ${output}`);
  }
  assertEquals(await Deno.readTextFile(`${ws}/conf/secret.txt`), "SECRET-FILE\n");
  assertEquals(await Deno.readTextFile(`${ws}/sub/dotssh/id`), "SECRET-DIR\n");
  assertEquals(await Deno.readTextFile(`${home}/.config/token`), "SECRET-CONFIG\n");
});

/**
 * Says its first argument (a hello) to each host socket named after it;
 * prints REACHED for each host that answers.
 */
const CONNECT = "import socket, sys\nfor path in sys.argv[2:]:\n" +
  "  s = socket.socket(socket.AF_UNIX); s.settimeout(15)\n" +
  "  try:\n    s.connect(path); s.sendall(sys.argv[1].encode() + b'\\n')\n" +
  "    print('REACHED' if s.recv(1) else 'closed', path)\n" +
  "  except OSError as e: print('not reached', path, e.strerror)\n";

/** The host sockets in runtime directory `dir`. */
function socketsIn(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => `${dir}/${e.name}`)
    .filter((path) => path.endsWith(".sock"));
}

holds("no program under a policy reaches another Portal host of its user, or its files", async (
  runner,
) => {
  await using at = await places(runner.runAs);
  // Hosts of the same user whose sockets are in TMPDIR fallbacks outside /tmp (Portal makes
  // portal-UID there: removed at the end unless it was there before)…
  const temporary = ["/var/tmp", "/dev/shm"];
  const fallbacks = temporary.map((dir) => `${dir}/portal-${runner.uid}`);
  const made = fallbacks.filter((dir) => !exists(dir));
  const others: Portal[] = [];
  try {
    for (const dir of temporary) {
      const env = { XDG_RUNTIME_DIR: "", TMPDIR: dir };
      others.push(await Portal.start({ env, cwd: at.root, user: runner.runAs }));
    }
    // …and one whose runtime directory is somewhere no sandbox can know of: it refuses them.
    const elsewhere = `${at.root}/elsewhere`;
    others.push(await Portal.start({ env: { XDG_RUNTIME_DIR: elsewhere }, user: runner.runAs }));
    const dirs = [...fallbacks, `${elsewhere}/portal`];
    const hello = JSON.stringify({ portal: VERSION, role: "ps" });
    // Outside a sandbox, the probe reaches them (and any other live host of the user there).
    const probe = ["/usr/bin/python3", "-c", CONNECT, hello, ...dirs.flatMap(socketsIn)];
    const as = runner.runAs?.name;
    const free = as
      ? new Deno.Command("setpriv", {
        args: [`--reuid=${as}`, `--regid=${as}`, "--clear-groups", "--", ...probe],
      })
      : new Deno.Command(probe[0], { args: probe.slice(1) });
    const { stdout, stderr } = await free.output();
    const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
    const sockets = [...text.matchAll(/^REACHED (.*)$/gm)].map((match) => match[1]);
    for (const dir of dirs) assert(sockets.some((path) => path.startsWith(dir)), text);
    // The host log outside the database's directory, as a user's is (~/.local/state/portal).
    const state = `${at.root}/state`;
    const env = { XDG_STATE_HOME: state };
    for (const rules of [{ mode: "workspace-write", network: "none" }, { mode: "full" }]) {
      await using portal = await startUnder(`${at.root}/${rules.mode}.json`, rules, {
        cwd: at.workspace,
        env,
        user: runner.runAs,
      });
      const own = socketsIn(`${portal.dir}/run/portal`);
      const log = [...Deno.readDirSync(`${state}/portal`)].map((e) => `${state}/portal/${e.name}`)
        .find((path) => path.endsWith(".log"))!;
      assertStringIncludes(await Deno.readTextFile(log), "host");
      const reached = await run(
        portal,
        `python3 -c "${CONNECT}" '${hello}' ${[...sockets, ...own].join(" ")}; ` +
          `cat ${log} && echo READ-LOG; ` +
          `for dir in ${state}/portal ${portal.dir} ${fallbacks.join(" ")}; do ` +
          `ls -A $dir | sed 's/^/ENTRY /'; done; echo x > /dev/null && echo DEVICES`,
      );
      assert(!/REACHED|READ-LOG|ENTRY/.test(reached.output), reached.output);
      assertStringIncludes(reached.output, "DEVICES", "/dev/null works (full mode's /dev too)");
    }
  } finally {
    for (const other of others) await other.close();
    for (const dir of made) await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

holds("network none and loopback refuse vsock; netlink stays, per namespace", async (runner) => {
  await using at = await places(runner.runAs);
  const vsock = `python3 -c "import socket; socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)"`;
  const netlink =
    `python3 -c "import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)"`;
  for (const network of ["none", "loopback"]) {
    await using portal = await startUnder(`${at.root}/${network}.json`, {
      mode: "read-only",
      network,
    }, { cwd: at.workspace, user: runner.runAs });
    const refused = await run(portal, vsock);
    assert(refused.code !== 0, `${network}: a vsock socket was made`);
    assertStringIncludes(refused.output, "PermissionError", network);
    assertEquals((await run(portal, netlink)).code, 0, `${network}: netlink`);
  }
});

holds("a working directory under the private /tmp is there, read-only", async (runner) => {
  await using at = await places(runner.runAs);
  await using cwd = await tempDir("portal-sandbox-cwd-");
  await Deno.writeTextFile(`${cwd.path}/notes.txt`, "here\n");
  if (runner.runAs) await chown(cwd.path, runner.runAs.name);
  await using portal = await startUnder(`${at.root}/policy.json`, { mode: "read-only" }, {
    cwd: cwd.path,
    user: runner.runAs,
  });
  const { output, code } = await run(portal, "pwd; cat notes.txt; echo x > written");
  assertEquals(output.split("\n").slice(0, 2), [cwd.path, "here"], output);
  assert(code !== 0, "the working directory is read-only under read-only");
});

/**
 * What the review found holding, asked again: a descriptor past 2 Portal or
 * bwrap left open, a capability, a way to new privileges, or a terminal
 * outside the program's own (the target of a TIOCSTI that types elsewhere).
 */
const HELD = String.raw`
python3 -c '
import os
for fd in range(3, 4096):
    try:
        os.fstat(fd)
        print("FD-%d-%s" % (fd, os.readlink("/proc/self/fd/%d" % fd)))
    except OSError:
        pass
'
grep -E '^Cap(Inh|Prm|Eff|Amb):' /proc/self/status | grep -v '0000000000000000' | sed 's/^/CAP-/'
grep -qE '^NoNewPrivs:\s*1' /proc/self/status || echo NEWPRIVS-allowed
(exec 3<>/dev/tty) 2>/dev/null && echo TTY-opened
echo ASKED`;

holds(
  "no descriptor, capability, new privilege or outside terminal reaches a program",
  async (runner) => {
    for (const [mode, output] of await inEachMode(runner, HELD)) {
      assertStringIncludes(output, "ASKED", `${mode}: the script did not run to its end`);
      assertEquals(output.match(/(FD|CAP|NEWPRIVS|TTY)-\S+/g), null, `${mode}: ${output}`);
    }
  },
);
