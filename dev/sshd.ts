/**
 * A throwaway ssh server for tests and benchmarks, as root: a new user with
 * a random password (bash, /etc/skel's files), a host key and a
 * configuration of its own, sshd on 127.0.0.1 at a free port. Disposing it
 * ends sshd and every process of the user (by pid), deletes the user and
 * its home, and removes the files, so nothing is left behind.
 *
 * {@link sshdAvailable} says whether this machine can run one (root, and
 * `/usr/sbin/sshd` installed: `apt-get install openssh-server`).
 *
 * @module
 */
import { freePort } from "./free_port.ts";
import { pidsOf } from "./process_table.ts";
import { waitFor } from "./wait.ts";
import { type TempDir, tempDir } from "./temp_dir.ts";

const SSHD = "/usr/sbin/sshd";

/** A running sshd and the user that may log in to it. */
export interface Sshd extends AsyncDisposable {
  port: number;
  user: string;
  password: string;
  /** The arguments of an `ssh` that logs in as the user (by password, no known_hosts file). */
  sshArgs: string[];
}

/** Whether a throwaway sshd can run here (root, sshd installed). */
export function sshdAvailable(): boolean {
  try {
    return Deno.uid() === 0 && Deno.statSync(SSHD).isFile;
  } catch {
    return false;
  }
}

/** Runs a command to its end; throws with its stderr when it fails. */
async function run(command: string, args: string[], stdin?: string): Promise<string> {
  const child = new Deno.Command(command, {
    args,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
  }
  const { code, stdout, stderr } = await child.output();
  if (code !== 0) {
    throw new Error(`${command} ${args.join(" ")}: ${new TextDecoder().decode(stderr)}`);
  }
  return new TextDecoder().decode(stdout);
}

function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Options of {@link startSshd}. */
export interface SshdOptions {
  /** A public key (one authorized_keys line) the user also logs in with. */
  authorizedKey?: string;
}

/** Starts sshd for a new user; see the module doc. */
export async function startSshd(options: SshdOptions = {}): Promise<Sshd> {
  const dir = await tempDir("portal-sshd-");
  const user = `portal${randomHex(4)}`;
  const password = randomHex(12);
  let created = false;
  let daemon: Deno.ChildProcess | null = null;
  const cleanup = () => stop(dir, user, created, daemon);
  try {
    await run("useradd", ["--create-home", "--shell", "/bin/bash", user]);
    created = true;
    await run("chpasswd", [], `${user}:${password}\n`);
    await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", `${dir.path}/host_key`]);
    if (options.authorizedKey) await authorize(user, options.authorizedKey);
    const port = freePort();
    await Deno.writeTextFile(
      `${dir.path}/sshd_config`,
      [
        "ListenAddress 127.0.0.1",
        `Port ${port}`,
        `HostKey ${dir.path}/host_key`,
        `PidFile ${dir.path}/sshd.pid`,
        "PasswordAuthentication yes",
        "KbdInteractiveAuthentication no",
        `PubkeyAuthentication ${options.authorizedKey ? "yes" : "no"}`,
        "UsePAM yes",
        `AllowUsers ${user}`,
        "PermitRootLogin no",
        "PrintMotd no",
        "PrintLastLog no",
        "",
      ].join("\n"),
    );
    // sshd's privilege separation directory (made by its init script, which did not run).
    await Deno.mkdir("/run/sshd", { recursive: true, mode: 0o755 });
    daemon = new Deno.Command(SSHD, {
      args: ["-D", "-e", "-f", `${dir.path}/sshd_config`],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    await waitFor(`sshd to listen on 127.0.0.1:${port}`, async () => {
      try {
        (await Deno.connect({ hostname: "127.0.0.1", port })).close();
        return true;
      } catch {
        return false;
      }
    });
    return {
      port,
      user,
      password,
      sshArgs: [
        "-F",
        "/dev/null",
        "-o",
        "StrictHostKeyChecking=no",
        "-o",
        "UserKnownHostsFile=/dev/null",
        "-o",
        "PreferredAuthentications=password",
        "-o",
        "LogLevel=ERROR",
        "-p",
        String(port),
        `${user}@127.0.0.1`,
      ],
      [Symbol.asyncDispose]: cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** Writes `key` to `user`'s ~/.ssh/authorized_keys, owned by the user (sshd's StrictModes). */
async function authorize(user: string, key: string): Promise<void> {
  const home = (await run("getent", ["passwd", user])).split(":")[5];
  await Deno.mkdir(`${home}/.ssh`, { mode: 0o700 });
  await Deno.writeTextFile(`${home}/.ssh/authorized_keys`, key.trim() + "\n", { mode: 0o600 });
  await run("chown", ["-R", `${user}:${user}`, `${home}/.ssh`]);
}

/** Ends sshd and the user's processes, deletes the user and the files. */
async function stop(
  dir: TempDir,
  user: string,
  created: boolean,
  daemon: Deno.ChildProcess | null,
): Promise<void> {
  if (daemon !== null) {
    try {
      daemon.kill("SIGTERM");
    } catch { /* already gone */ }
    await daemon.status;
  }
  if (created) {
    // The sessions' sshd processes and shells outlive the listener: each ends by its pid.
    for (const pid of pidsOf(user)) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* gone meanwhile */ }
    }
    await waitFor(`the processes of ${user} to end`, () => pidsOf(user).length === 0);
    await run("userdel", ["--force", "--remove", user]).catch(() => {});
  }
  await dir[Symbol.asyncDispose]();
}
