/**
 * "Another machine" for the remote tests and benchmark, as root: a
 * throwaway sshd on 127.0.0.1 (dev/sshd.ts) whose new user logs in by a key
 * made here, with a `portal` on its PATH (~/.local/bin, put first on PATH by
 * its ~/.bashrc, as a person does) that runs this checkout under Deno with
 * a copy of its dependencies the user can read. An ssh config file names
 * the machine `alias`; {@link RemoteMachine.sshCommand} is the
 * `PORTAL_SSH_COMMAND` that uses it. Disposing it ends sshd and every
 * process of the user, deletes the user and the files.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { type Sshd, startSshd } from "./sshd.ts";

const CHECKOUT = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");

/** A machine reached by ssh as another user. */
export interface RemoteMachine extends AsyncDisposable {
  /** Its name in {@link configFile}. */
  alias: string;
  user: string;
  uid: number;
  /** The ssh config that names it (key, port, no host key prompt). */
  configFile: string;
  /** `ssh -F <configFile>`: PORTAL_SSH_COMMAND. */
  sshCommand: string;
  sshd: Sshd;
}

/** Runs a command to its end; its stdout, or a throw with its stderr. */
async function run(command: string, args: string[], env?: Record<string, string>) {
  const { success, stdout, stderr } = await new Deno.Command(command, { args, env }).output();
  if (!success) {
    throw new Error(`${command} ${args.join(" ")}: ${new TextDecoder().decode(stderr)}`);
  }
  return new TextDecoder().decode(stdout);
}

/**
 * Deno's cache of the server's dependencies, readable by every user (the
 * other user cannot read root's), made once per run of the process.
 */
let sharedCache: Promise<string> | undefined;
function readableCache(dir: string): Promise<string> {
  return sharedCache ??= (async () => {
    const cache = `${dir}/deno`;
    await run(Deno.execPath(), ["cache", `--lock=${CHECKOUT}/deno.lock`, `${CHECKOUT}/main.ts`], {
      ...Deno.env.toObject(),
      DENO_DIR: cache,
    });
    await run("chmod", ["-R", "a+rX", cache]);
    return cache;
  })();
}

/** One directory for every machine of this process, removed at its exit. */
let commonDir: string | undefined;
function sharedDir(): string {
  if (commonDir === undefined) {
    commonDir = Deno.makeTempDirSync({ prefix: "portal-remote-" });
    Deno.chmodSync(commonDir, 0o755);
    const dir = commonDir;
    globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
  }
  return commonDir;
}

/** What "another machine" has: by default, a `portal` on its PATH. */
export interface MachineOptions {
  /** No `portal` there (`portal remote install` puts one), and its ~/.bashrc sets PATH to `path`. */
  bare?: { path: string; env?: Record<string, string> };
}

/** Starts "another machine" named `alias`; see the module doc. */
export async function remoteMachine(
  alias = "calcbox",
  options: MachineOptions = {},
): Promise<RemoteMachine> {
  const dir = sharedDir();
  const keyFile = `${dir}/id_${alias}_${crypto.randomUUID().slice(0, 8)}`;
  await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", keyFile]);
  const sshd = await startSshd({ authorizedKey: await Deno.readTextFile(`${keyFile}.pub`) });
  try {
    const home = (await run("getent", ["passwd", sshd.user])).split(":")[5];
    const uid = Number((await run("id", ["-u", sshd.user])).trim());
    if (options.bare) {
      const { path, env = {} } = options.bare;
      const exports = Object.entries({ PATH: path, ...env }).map(([k, v]) =>
        `export ${k}="${v}"\n`
      );
      const bashrc = await Deno.readTextFile(`${home}/.bashrc`).catch(() => "");
      await Deno.writeTextFile(`${home}/.bashrc`, exports.join("") + bashrc);
    } else {
      await installCheckout(dir, home);
    }
    await run("chown", ["-R", `${sshd.user}:${sshd.user}`, home]);
    const configFile = `${keyFile}.config`;
    await Deno.writeTextFile(
      configFile,
      [
        `Host ${alias}`,
        "  HostName 127.0.0.1",
        `  Port ${sshd.port}`,
        `  User ${sshd.user}`,
        `  IdentityFile ${keyFile}`,
        "  IdentitiesOnly yes",
        "  PreferredAuthentications publickey",
        "  StrictHostKeyChecking no",
        "  UserKnownHostsFile /dev/null",
        "  LogLevel ERROR",
        "",
      ].join("\n"),
    );
    return {
      alias,
      user: sshd.user,
      uid,
      configFile,
      sshCommand: `ssh -F ${configFile}`,
      sshd,
      [Symbol.asyncDispose]: () => sshd[Symbol.asyncDispose](),
    };
  } catch (error) {
    await sshd[Symbol.asyncDispose]();
    throw error;
  }
}

/** Puts a `portal` that runs this checkout first on the user's PATH (its ~/.bashrc), as a person does. */
async function installCheckout(dir: string, home: string): Promise<void> {
  const cache = await readableCache(dir);
  await Deno.mkdir(`${home}/.local/bin`, { recursive: true });
  await Deno.writeTextFile(
    `${home}/.local/bin/portal`,
    `#!/bin/sh\nDENO_DIR=${cache} exec ${Deno.execPath()} run -A --lock=${CHECKOUT}/deno.lock ` +
      `${CHECKOUT}/main.ts "$@"\n`,
    { mode: 0o755 },
  );
  const bashrc = await Deno.readTextFile(`${home}/.bashrc`).catch(() => "");
  await Deno.writeTextFile(`${home}/.bashrc`, `PATH="$HOME/.local/bin:$PATH"\n${bashrc}`);
}
