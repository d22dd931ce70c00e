/**
 * A person's rules for what the agent's programs may touch (`PORTAL_POLICY`
 * or `--policy FILE`), as Portal holds them once the file was read
 * (policy_file.ts): every path absolute, `~` expanded. Only the command that
 * starts Portal sets one; no tool can change it. The kernel enforces it
 * (terminal/posix/bubblewrap.ts): this module only says what the rules are.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describePolicy, FULL_ACCESS, policyOfView, samePolicy } from "./policy.ts";
 *
 * const rules = { ...FULL_ACCESS, mode: "workspace-write" as const, workspace: ["/w"] };
 * assert.equal(describePolicy(rules).mode, "workspace-write");
 * assert.ok(samePolicy(rules, { ...rules, workspace: ["/w"] }));
 * assert.ok(!samePolicy(rules, FULL_ACCESS));
 * assert.ok(samePolicy(policyOfView(describePolicy(rules)), rules));
 * ```
 * @module
 */
import { HAS_SANDBOX } from "../../platform.ts";

/** What programs may write: nothing but a private temp dir, that and the workspace, or anything. */
export type PolicyMode = "read-only" | "workspace-write" | "full";

/** What programs may reach: nothing, their own loopback, or any host. */
export type NetworkRule = "none" | "loopback" | "all";

/** The rules, as read from the person's file. */
export interface Policy {
  /** The file they came from (absolute): read-only to every program. */
  file: string | null;
  mode: PolicyMode;
  /** The writable directories under `workspace-write` (absolute; default the working directory). */
  workspace: string[];
  /** Paths no program may read: they appear empty. */
  hide: string[];
  network: NetworkRule;
  /** Executables (names or absolute paths) that may not run, from process_start or inside. */
  deny: string[];
  /** If set, the only executables process_start may start. */
  allow: string[] | null;
  /** The machines a process_start's `machine` may name (none when a policy is set). */
  machines: string[];
}

/** No policy: today's behaviour, every program may do what the user may. */
export const FULL_ACCESS: Policy = {
  file: null,
  mode: "full",
  workspace: [],
  hide: [],
  network: "all",
  deny: [],
  allow: null,
  machines: [],
};

/**
 * Whether `policy` needs the kernel's sandbox: on Linux every policy does
 * (`full` too hides Portal's own files and the kernel's settings from its
 * programs: core/policy/sandbox_rules.ts); elsewhere, where there is none,
 * one that asks for more than process_start's checks.
 */
export function needsSandbox(policy: Policy): boolean {
  if (policy.file === null) return false;
  return HAS_SANDBOX || policy.mode !== "full" || policy.network !== "all" ||
    policy.hide.length > 0 || policy.deny.length > 0;
}

/** The rules as process_inspect, the watch page and `portal doctor` show them. */
export type PolicyView = {
  file: string | null;
  mode: PolicyMode;
  workspace?: string[];
  hide?: string[];
  network: NetworkRule;
  commands?: { deny?: string[]; allow?: string[] };
  machines?: string[];
  /** `machines` as a Portal before the name wrote it in a row (read back, never shown). */
  hosts?: string[];
};

/** `policy` for a person or an agent to read: what is not restricted is left out. */
export function describePolicy(policy: Policy): PolicyView {
  const commands = {
    ...policy.deny.length ? { deny: policy.deny } : {},
    ...policy.allow ? { allow: policy.allow } : {},
  };
  return {
    file: policy.file,
    mode: policy.mode,
    ...policy.mode === "workspace-write" ? { workspace: policy.workspace } : {},
    ...policy.hide.length ? { hide: policy.hide } : {},
    network: policy.network,
    ...Object.keys(commands).length ? { commands } : {},
    ...policy.file ? { machines: policy.machines } : {},
  };
}

/**
 * The rules `view` shows, as {@link describePolicy} made it (a process of an
 * earlier host keeps them in the records database): what it leaves out is
 * what was not restricted.
 */
export function policyOfView(view: PolicyView): Policy {
  return {
    file: view.file,
    mode: view.mode,
    workspace: view.workspace ?? [],
    hide: view.hide ?? [],
    network: view.network,
    deny: view.commands?.deny ?? [],
    allow: view.commands?.allow ?? null,
    machines: view.machines ?? view.hosts ?? [],
  };
}

/**
 * Whether `a` and `b` are the same rules (a session sees only processes
 * under its own): the same as shown, so a restored process's rules
 * ({@link policyOfView}) are the same as those it was started under.
 */
export function samePolicy(a: Policy, b: Policy): boolean {
  return JSON.stringify(describePolicy(a)) === JSON.stringify(describePolicy(b));
}
