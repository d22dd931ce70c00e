/**
 * A person's policy as the terminal backends enforce it ({@link Sandbox}):
 * which directories are writable, what is hidden, what may run. Portal's own files are hidden from every sandboxed
 * program whatever the policy says: its sockets (a program that reached the
 * host could start programs outside the rules), its records and the watch
 * link's token, and the user's runtime directory (`/run/user/UID`: D-Bus and
 * `systemd --user` start programs outside any sandbox), as is Docker's socket.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FULL_ACCESS } from "./policy.ts";
 * import { sandboxOf } from "./sandbox_rules.ts";
 *
 * assert.equal(sandboxOf(FULL_ACCESS, { hidden: [], filesDir: "/x" }), undefined);
 * const policy = { ...FULL_ACCESS, file: "/p.json", mode: "read-only" as const };
 * const dir = "/x";
 * const sandbox = sandboxOf(policy, { hidden: ["/db"], filesDir: dir })!;
 * assert.deepEqual([sandbox.confined, sandbox.writable, sandbox.privateTmp], [true, [], true]);
 * assert.ok(sandbox.hidden.includes("/db"));
 * ```
 * @module
 */
import type { Sandbox } from "../../terminal/sandbox.ts";
import { needsSandbox, type Policy } from "./policy.ts";

/** What every sandbox hides besides the policy's own `hide`. */
const ALWAYS_HIDDEN = ["/run/docker.sock", "/var/run/docker.sock"];

/** Where Portal keeps what a sandbox needs: its own files to hide, and a directory for its files. */
export interface SandboxPlace {
  /** Portal's own directories and files (runtime, records, data) and the user's runtime dir. */
  hidden: string[];
  /** A directory of Portal's for what the backend writes once (Sandbox.filesDir). */
  filesDir: string;
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
