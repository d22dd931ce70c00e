/**
 * A throwaway second user for tests of what another local user can do
 * (root only, as dev/sshd.ts makes one): its programs run through
 * `setpriv`, and disposing it ends them (each by its pid) and deletes it.
 *
 * @module
 */
import { pidsOf } from "../../dev/process_table.ts";
import { waitFor } from "../../dev/wait.ts";

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
