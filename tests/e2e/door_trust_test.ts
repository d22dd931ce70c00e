/**
 * The door talks only to its own user's host, and the host only to its own
 * user's processes (issue 28, item 2), with real second users (root only):
 * an XDG_RUNTIME_DIR of another user is not used; a socket at the host's
 * path served by another user gets not a byte; a client of another user is
 * refused by the host, on its socket and on its fd socket; the runtime
 * directory is never reached through a link.
 */
import { basename } from "node:path";
import { hostLogs, MAIN, Portal, serverEnv } from "../../dev/portal_client.ts";
import { waitFor } from "../../dev/wait.ts";
import { hostAddress } from "../../src/host/address.ts";
import { runtimeDir } from "../../src/runtime_dir.ts";
import { VERSION } from "../../src/version.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { asRoot, otherUser } from "../helpers/other_user.ts";
import { hostDir } from "../helpers/portal.ts";
import { pidAlive } from "../helpers/processes.ts";

const IMPOSTOR = new URL("../helpers/impostor_socket.py", import.meta.url).pathname;

/** A test that creates users: Linux (setpriv, SO_PEERCRED), as root. */
function rootTest(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, ignore: Deno.build.os !== "linux" || Deno.uid() !== 0, fn });
}

/** What `child` writes to stdout, as it comes. */
function collect(
  stream: ReadableStream<Uint8Array<ArrayBuffer>>,
): { text: string; done: Promise<void> } {
  const out = { text: "", done: Promise.resolve() };
  out.done = stream.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (out.text += chunk) }),
  );
  return out;
}

/** Starts the impostor socket at `path` as `user`; resolves once it listens. */
async function impostor(
  user: ReturnType<typeof otherUser>,
  path: string,
): Promise<{ child: Deno.ChildProcess; out: { text: string; done: Promise<void> } }> {
  const child = user.spawn(["/usr/bin/python3", IMPOSTOR, path]);
  const out = collect(child.stdout);
  child.stderr.cancel();
  await waitFor("the impostor to listen", () => out.text.includes("listening"));
  return { child, out };
}

/** Ends the hosts whose locks are in `dir` (SIGTERM) and waits until they are gone. */
async function endHostsIn(dir: string): Promise<void> {
  for (const entry of Deno.readDirSync(dir)) {
    if (!entry.name.endsWith(".sock.lock")) continue;
    const pid = Number.parseInt(Deno.readTextFileSync(`${dir}/${entry.name}`));
    try {
      Deno.kill(pid, "SIGTERM");
    } catch {
      continue; // Gone already.
    }
    await waitFor(`host ${pid} to end`, () => {
      try {
        Deno.kill(pid, "SIGCONT");
      } catch {
        return true;
      }
      return !pidAlive(pid);
    });
  }
}

/** The name the host's socket has for the records database of `dir` (the same in any runtime dir). */
async function socketName(dir: string): Promise<string> {
  return basename(
    (await hostAddress({ XDG_RUNTIME_DIR: `${dir}/run`, PORTAL_DB_PATH: `${dir}/records.db` }))
      .socket,
  );
}

rootTest(
  "an XDG_RUNTIME_DIR of another user is not used: its impostor socket hears nothing",
  async () => {
    await using dir = await hostDir();
    await using user = otherUser();
    Deno.chmodSync(dir.path, 0o755);
    // As after `su` without `-`: the variable names the other user's own runtime directory,
    // where they have put a socket at the very path the door would use.
    const theirs = `${dir.path}/theirs`;
    Deno.mkdirSync(`${theirs}/portal`, { recursive: true, mode: 0o700 });
    asRoot("chown", ["-R", `${user.name}:${user.name}`, theirs]);
    const fake = await impostor(user, `${theirs}/portal/${await socketName(dir.path)}`);
    const privateDir = `${dir.path}/tmp`;
    try {
      {
        await using portal = await Portal.start({
          dir: dir.path,
          env: { XDG_RUNTIME_DIR: theirs, TMPDIR: privateDir, PORTAL_SECRET_TOKEN: "s3cret" },
          captureStderr: true,
        });
        const echo = await portal.call("process_start", {
          command: "sh",
          args: ["-c", "echo served"],
          wait: "exit",
        });
        assertMatch(echo.output, /served/);
        // The door's lines reach us through a pipe read on its own schedule: wait for the last.
        await waitFor("the door's line naming the host", () => portal.stderr, {
          until: (text) => text.includes("through its host"),
        });
        const door = portal.stderr.slice(0, portal.stderr.length - hostLogs(dir.path).length);
        const told = door.match(/not using XDG_RUNTIME_DIR/g) ?? [];
        assertEquals(told.length, 1, door);
        assertMatch(door, new RegExp(`belongs to user ${user.uid}, not to you \\(0\\)`));
        assertMatch(door, new RegExp(`through its host \\(pid \\d+, ${privateDir}/portal-0/`));
      }
      assertEquals(fake.out.text, "listening\n", "the impostor was never connected to");
    } finally {
      await endHostsIn(`${privateDir}/portal-0`).catch(() => {});
      fake.child.kill("SIGKILL");
      await fake.child.status;
    }
  },
);

rootTest("a socket at the host's path served by another user gets not a byte", async () => {
  await using dir = await hostDir();
  await using user = otherUser();
  Deno.chmodSync(dir.path, 0o755);
  const env = await serverEnv(dir.path, { env: { PORTAL_SECRET_TOKEN: "s3cret" } });
  const socket = (await hostAddress(env)).socket;
  // The other user's socket, moved into this user's own directory, at the host's path.
  const theirs = `${dir.path}/theirs`;
  Deno.mkdirSync(theirs, { mode: 0o755 });
  asRoot("chown", [`${user.name}:${user.name}`, theirs]);
  const fake = await impostor(user, `${theirs}/s`);
  Deno.renameSync(`${theirs}/s`, socket);
  try {
    for (const args of [[], ["ps"], ["attach", "1"]]) {
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN, ...args],
        env,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}\n'));
      await writer.close().catch(() => {});
      const { code, stderr } = await child.output();
      const said = new TextDecoder().decode(stderr);
      assertEquals(code, 1, said);
      assertMatch(
        said,
        new RegExp(
          `${socket} is served by a process of user ${user.uid}, not by you \\(user 0\\); nothing was sent`,
        ),
      );
    }
    await waitFor("the impostor to see each caller leave", () => fake.out.text, {
      until: (text) => text.match(/received/g)?.length === 3,
    });
    assertEquals(fake.out.text, `listening\n${"connected\nreceived 0\n".repeat(3)}`);
  } finally {
    fake.child.kill("SIGKILL");
    await fake.child.status;
  }
});

rootTest("the host refuses a client of another user, on its socket and its fd socket", async () => {
  await using dir = await hostDir();
  await using user = otherUser();
  await using portal = await Portal.start({ dir: dir.path, captureStderr: true });
  await portal.call("process_list");
  const socket = (await hostAddress(await serverEnv(dir.path))).socket;
  // Made reachable for the test: file modes are not what keeps the other user out here.
  for (const path of [dir.path, `${dir.path}/run`, `${dir.path}/run/portal`]) {
    Deno.chmodSync(path, 0o755);
  }
  Deno.chmodSync(socket, 0o666);
  Deno.chmodSync(`${socket}.fds`, 0o666);
  const client = `import socket, sys
for path, data in ((sys.argv[1], sys.argv[2].encode() + b"\\n"), (sys.argv[1] + ".fds", b"0" * 32)):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    s.settimeout(10)
    got = b""
    try:
        s.sendall(data)
        while chunk := s.recv(65536):
            got += chunk
    except (ConnectionResetError, BrokenPipeError):
        pass  # Closed at once, with what was sent unread.
    print(path, repr(got), flush=True)`;
  const hello = JSON.stringify({ portal: VERSION, role: "ps" });
  const child = user.spawn(["/usr/bin/python3", "-c", client, socket, hello]);
  const { success, stdout, stderr } = await child.output();
  const out = new TextDecoder().decode(stdout);
  assert(success, new TextDecoder().decode(stderr));
  // Closed before a byte was read or written: not even the refusal a wrong version gets.
  assertEquals(out, `${socket} b''\n${socket}.fds b''\n`);
  for (const path of [socket, `${socket}.fds`]) {
    assertMatch(
      portal.stderr,
      new RegExp(`refused a connection to ${path} from user ${user.uid}: this host serves user 0`),
    );
  }
  // This user's client is served as before.
  assertEquals((await portal.call("process_list")).processes.length, 0);
});

rootTest(
  "the runtime directory is never reached through a link: its target is left as it is",
  async () => {
    await using dir = await hostDir();
    const xdg = `${dir.path}/xdg`;
    Deno.mkdirSync(xdg, { mode: 0o700 });
    Deno.writeTextFileSync(`${dir.path}/target-file`, "mine\n");
    Deno.chmodSync(`${dir.path}/target-file`, 0o644);
    Deno.mkdirSync(`${dir.path}/target-dir`, { mode: 0o755 });
    Deno.chmodSync(`${dir.path}/target-dir`, 0o755);
    for (const target of ["target-file", "target-dir"]) {
      try {
        Deno.removeSync(`${xdg}/portal`);
      } catch { /* none yet */ }
      Deno.symlinkSync(`${dir.path}/${target}`, `${xdg}/portal`);
      const { code, stderr } = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN, "ps"],
        env: await serverEnv(dir.path, { env: { XDG_RUNTIME_DIR: xdg } }),
        stdout: "null",
        stderr: "piped",
      }).output();
      assertEquals(code, 1);
      assertMatch(new TextDecoder().decode(stderr), /portal is not safe to use: it is a link/);
      const expected = target === "target-file" ? 0o644 : 0o755;
      assertEquals(Deno.statSync(`${dir.path}/${target}`).mode! & 0o7777, expected, "as it was");
    }
  },
);

rootTest("a runtime directory others may write in, or on such a path, is not used", async () => {
  await using dir = await hostDir();
  const open = `${dir.path}/open`;
  Deno.mkdirSync(`${open}/xdg`, { recursive: true });
  Deno.chmodSync(open, 0o777);
  Deno.chmodSync(`${open}/xdg`, 0o700);
  const fallback = `${dir.path}/private`;
  // Its parent is writable by all (not sticky): anyone could swap xdg itself.
  assertEquals(
    runtimeDir({ XDG_RUNTIME_DIR: `${open}/xdg`, TMPDIR: fallback }),
    `${fallback}/portal-0`,
  );
  Deno.chmodSync(open, 0o1777); // Sticky, as /tmp: no one renames another's entries.
  assertEquals(
    runtimeDir({ XDG_RUNTIME_DIR: `${open}/xdg`, TMPDIR: fallback }),
    `${open}/xdg/portal`,
  );
  Deno.chmodSync(`${open}/xdg`, 0o770);
  assertEquals(
    runtimeDir({ XDG_RUNTIME_DIR: `${open}/xdg`, TMPDIR: fallback }),
    `${fallback}/portal-0`,
  );
});
