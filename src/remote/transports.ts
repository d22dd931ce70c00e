/**
 * How a `machine` is reached: a transport a person named, or ssh. A person
 * may set `PORTAL_MACHINE_<name>` (or `PORTAL_HOST_<name>`, its deprecated
 * name) to a command line that gives a stdio to that machine's Portal (the
 * whole command, `portal` included: `docker exec -i web portal`, `kubectl
 * exec -i web-0 -- portal`); `machine: "<name>"` then runs it. Any other
 * `machine` is an ssh destination (ssh_command.ts). The agent names
 * machines; only the person's environment says what a name runs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { transportOf } from "./transports.ts";
 *
 * const env = { PORTAL_MACHINE_web: "docker exec -i web portal" };
 * assert.deepEqual(transportOf("web", env, "/run/p").argv, ["docker", "exec", "-i", "web", "portal"]);
 * assert.equal(transportOf("db1", env, "/run/p").ssh, true);
 * // The deprecated name is read too.
 * assert.deepEqual(transportOf("db1", { PORTAL_HOST_db1: "mine" }, "/run/p").argv, ["mine"]);
 * ```
 * @module
 */
import { type RemoteRun, splitCommand, sshArgv } from "./ssh_command.ts";

/** A command whose stdin and stdout are a Portal's on the other side. */
export interface Transport {
  argv: string[];
  /** Through ssh (its exit 255 and messages are ssh's own). */
  ssh: boolean;
}

/** The transport of `machine` as `env` (the client's) configures it; control sockets in `controlDir`. */
export function transportOf(
  machine: string,
  env: Record<string, string | undefined>,
  controlDir: string,
  run: RemoteRun = {},
): Transport {
  // PORTAL_HOST_<name>: the deprecated name of PORTAL_MACHINE_<name>, read after it.
  const variable = [`PORTAL_MACHINE_${machine}`, `PORTAL_HOST_${machine}`]
    .find((name) => /^\w+$/.test(machine) && env[name]?.trim());
  if (variable) {
    // Set to more than spaces (as found): at least one word.
    return { argv: [...splitCommand(env[variable]!.trim()), ...run.args ?? []], ssh: false };
  }
  return { argv: sshArgv(machine, env, controlDir, run), ssh: true };
}
