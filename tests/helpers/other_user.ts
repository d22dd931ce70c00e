/**
 * A throwaway second user for tests of what another local user can do
 * (root only, as dev/sshd.ts makes one): its programs run through
 * `setpriv`, and disposing it ends them (each by its pid) and deletes it.
 *
 * @module
 */
import { denoDir } from "../../dev/portal_client.ts";
import { pidsOf } from "../../dev/process_table.ts";
import { waitFor } from "../../dev/wait.ts";
import { exists } from "../../dev/exists.ts";

/** A user made for one test. */
export interface OtherUser extends AsyncDisposable {
  name: string;
  uid: number;
  /** Starts `args` as this user (no supplementary groups), its stdio piped. */
  spawn(args: string[], env?: Record<string, string>): Deno.ChildProcess;
}

/** Runs `command` as this (root) process, failing with its stderr; its stdout. */
export function asRoot(command: string, args: string[]): string {
  const { success, stdout, stderr } = new Deno.Command(command, { args, stderr: "piped" })
    .outputSync();
  if (!success) {
    throw new Error(`${command} ${args.join(" ")}: ${new TextDecoder().decode(stderr)}`);
  }
  return new TextDecoder().decode(stdout);
}

/** Makes a new user (no home, no login shell). */
export function otherUser(): OtherUser {
  const name = `portal${crypto.randomUUID().slice(0, 8)}`;
  asRoot("useradd", ["-M", "-s", "/usr/sbin/nologin", name]);
  const uid = Number(asRoot("id", ["-u", name]).trim());
  return {
    name,
    uid,
    spawn: (args, env = {}) =>
      new Deno.Command("setpriv", {
        args: [`--reuid=${name}`, `--regid=${name}`, "--clear-groups", "--", ...args],
        env: { PATH: "/usr/local/bin:/usr/bin:/bin", ...env },
        clearEnv: true,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn(),
    async [Symbol.asyncDispose]() {
      for (const pid of pidsOf(name)) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch { /* gone meanwhile */ }
      }
      await waitFor(`the processes of ${name} to end`, () => pidsOf(name).length === 0);
      // Another test suite on the machine may hold /etc/passwd's lock a moment: try again.
      await waitFor(`userdel ${name}`, () => {
        try {
          asRoot("userdel", [name]);
          return true;
        } catch {
          return false;
        }
      });
    },
  };
}

/**
 * Copies the npm packages the server imports (deno.lock's, each with its registry entry) from
 * Deno's cache to `npm`: not the whole cache, whose 100 MB for the tests' tools cost some 2.6 CPU-s.
 */
export async function copyServerPackages(npm: string): Promise<void> {
  const { npm: packages } = JSON.parse(
    Deno.readTextFileSync(new URL("../../deno.lock", import.meta.url)),
  );
  // On a fresh machine another test's server may be filling the cache this very moment: Deno
  // holds its cache lock until every package is whole, so copy only after a cache of our own.
  const cached = await new Deno.Command(Deno.execPath(), {
    args: ["cache", "--quiet", "main.ts"],
    cwd: new URL("../../", import.meta.url).pathname,
    stderr: "piped",
  }).output();
  if (!cached.success) throw new Error(`deno cache: ${new TextDecoder().decode(cached.stderr)}`);
  const cache = `${await denoDir()}/npm/registry.npmjs.org`;
  // Each package's version, and its registry.json where Deno fetched one (for the packages
  // deno.json names; a dependency resolved from the lockfile alone has none).
  const parts = Object.keys(packages).flatMap((key) => {
    // "@scope/name@1.2.3_peer@4.5.6": the version's "@" is the first after the scope's.
    const at = key.indexOf("@", 1);
    const name = key.slice(0, at);
    return [`${name}/${key.slice(at + 1).split("_")[0]}`, `${name}/registry.json`];
  }).filter((part) => part.endsWith("/registry.json") ? exists(`${cache}/${part}`) : true);
  Deno.mkdirSync(`${npm}/registry.npmjs.org`, { recursive: true });
  const { success, stderr } = new Deno.Command("cp", {
    args: ["-r", "--parents", ...new Set(parts), `${npm}/registry.npmjs.org`],
    cwd: cache,
    stderr: "piped",
  }).outputSync();
  if (!success) throw new Error(`cp: ${new TextDecoder().decode(stderr)}`);
}
