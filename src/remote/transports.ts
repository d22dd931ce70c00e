/**
 * How a `host` is reached: a transport a person named, or ssh. A person may
 * set `PORTAL_HOST_<name>` to a command line that gives a stdio to that
 * machine's Portal (the whole command, `portal` included: `docker exec -i
 * web portal`, `kubectl exec -i web-0 -- portal`); `host: "<name>"` then runs
 * it. Any other `host` is an ssh destination (ssh_command.ts). The agent
 * names hosts; only the person's environment says what a name runs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { transportOf } from "./transports.ts";
 *
 * const env = { PORTAL_HOST_web: "docker exec -i web portal" };
 * assert.deepEqual(transportOf("web", env, "/run/p").argv, ["docker", "exec", "-i", "web", "portal"]);
 * assert.equal(transportOf("db1", env, "/run/p").ssh, true);
 * ```
 * @module
 */
import { PortalError } from "../errors.ts";
import { type RemoteRun, splitCommand, sshArgv } from "./ssh_command.ts";

/** A command whose stdin and stdout are a Portal's on the other side. */
export interface Transport {
  argv: string[];
  /** Through ssh (its exit 255 and messages are ssh's own). */
  ssh: boolean;
}

/** The transport of `host` as `env` (the client's) configures it; control sockets in `controlDir`. */
export function transportOf(
  host: string,
  env: Record<string, string | undefined>,
  controlDir: string,
  run: RemoteRun = {},
): Transport {
  const named = /^\w+$/.test(host) ? env[`PORTAL_HOST_${host}`]?.trim() : undefined;
  if (named) {
    const argv = splitCommand(named);
    if (argv.length === 0) throw new PortalError(`PORTAL_HOST_${host} names no command.`);
    return { argv: [...argv, ...run.args ?? []], ssh: false };
  }
  return { argv: sshArgv(host, env, controlDir, run), ssh: true };
}
