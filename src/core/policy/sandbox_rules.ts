/**
 * A person's policy as the terminal backends enforce it ({@link Sandbox}):
 * which directories are writable, what is hidden, what may run. Portal's own
 * files are hidden from every sandboxed program whatever the policy says,
 * `full` mode included ({@link portalPlace}): the sockets of every Portal
 * host of the user it can know of (a program that reached one could start
 * programs outside the rules), the records, tasks, watch links and host
 * logs, and the user's runtime directory (`/run/user/UID`: D-Bus and
 * `systemd --user` start programs outside any sandbox), as is Docker's socket.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FULL_ACCESS } from "./policy.ts";
 * import { portalPlace, sandboxOf } from "./sandbox_rules.ts";
 *
 * const place = portalPlace({ HOME: "/home/ada", TMPDIR: "/var/tmp" }, "/db/records.db");
 * assert.ok(place.hidden.includes("/home/ada/.local/state/portal"));
 * assert.ok(place.hidden.includes(`/var/tmp/portal-${Deno.uid()}`));
 * assert.equal(sandboxOf(FULL_ACCESS, place), undefined);
 * const policy = { ...FULL_ACCESS, file: "/p.json", mode: "read-only" as const };
 * const sandbox = sandboxOf(policy, place)!;
 * assert.deepEqual([sandbox.confined, sandbox.writable, sandbox.privateTmp], [true, [], true]);
 * assert.ok(sandbox.hidden.includes("/db"));
 * ```
 * @module
 */
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Sandbox } from "../../terminal/sandbox.ts";
import { dataDir, stateDir } from "../store/paths.ts";
import { needsSandbox, type Policy } from "./policy.ts";

/** What every sandbox hides besides the policy's own `hide`. */
const ALWAYS_HIDDEN = ["/run/docker.sock", "/var/run/docker.sock"];

/** Where a host's socket goes when `XDG_RUNTIME_DIR` is unset or unsafe (src/runtime_dir.ts). */
const TEMPORARY_DIRS = ["/tmp", "/var/tmp", "/dev/shm"];

/** Where Portal keeps what a sandbox needs: its own files to hide, and a directory for its files. */
export interface SandboxPlace {
  /** Portal's own directories and files (runtime, records, data) and the user's runtime dir. */
  hidden: string[];
  /** A directory of Portal's for what the backend writes once (Sandbox.filesDir). */
  filesDir: string;
}

/**
 * Portal's own places, as a server whose environment is `env` and whose
 * records database is `database` (`:memory:`: none) knows them: its state directory (records,
 * host logs), the database's directory (tasks, watch links), its data
 * directory, and every runtime directory a host of this user may have
 * taken: this `XDG_RUNTIME_DIR`, `/run/user/UID`, and `portal-UID` in this
 * `TMPDIR`, the system's temporary directory, `/tmp`, `/var/tmp` and
 * `/dev/shm`. A host started with a runtime directory elsewhere is not
 * known here (docs/policy.md).
 */
export function portalPlace(env: Record<string, string>, database: string): SandboxPlace {
  const uid = Deno.uid();
  const temporary = [env.TMPDIR, tmpdir(), ...TEMPORARY_DIRS].filter((dir) => dir);
  const runtime = uid === null ? [] : [
    `/run/user/${uid}`,
    ...temporary.map((dir) => join(dir, `portal-${uid}`)),
  ];
  const hidden = [
    stateDir(env),
    ...database === ":memory:" ? [] : [dirname(database)],
    dataDir(env),
    ...env.XDG_RUNTIME_DIR ? [env.XDG_RUNTIME_DIR] : [],
    ...runtime,
  ];
  return { hidden: [...new Set(hidden)], filesDir: dataDir(env) };
}

/** The rules a program of `policy` runs under; undefined without a policy file. */
export function sandboxOf(policy: Policy, place: SandboxPlace): Sandbox | undefined {
  if (policy.file === null) return undefined;
  const full = policy.mode === "full";
  return {
    policyFile: policy.file,
    confined: needsSandbox(policy),
    writable: full ? ["/"] : policy.mode === "workspace-write" ? policy.workspace : [],
    privateTmp: !full,
    hidden: [
      ...policy.hide,
      ...place.hidden,
      ...ALWAYS_HIDDEN,
    ],
    readable: [],
    network: policy.network,
    deny: policy.deny,
    allow: policy.allow,
    filesDir: place.filesDir,
  };
}
