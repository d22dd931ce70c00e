/**
 * The person's policy for a server that is starting: the file `--policy` or
 * `PORTAL_POLICY` names, read and checked, and the sandbox it needs tried
 * once. Portal never runs a program outside rules the person set: a policy
 * it cannot read stops it with exit 2 (naming the file, key, value and line),
 * and one this machine cannot enforce with exit 1 and how to fix it.
 *
 * @module
 */
import { homedir } from "node:os";
import { describePolicy, FULL_ACCESS, needsSandbox, type Policy } from "../core/policy/policy.ts";
import { PolicyFileError, readPolicyFile } from "../core/policy/policy_file.ts";
import { POLICY, readVar } from "../env_vars.ts";
import { NO_SANDBOX } from "../platform.ts";
import { bubblewrapProblem } from "../terminal/posix/bubblewrap.ts";

/** The policy named by `env.PORTAL_POLICY` (with `--policy` applied), or none. */
export function policyOf(env: Record<string, string>): Policy {
  const file = readVar(POLICY, env);
  if (!file) return FULL_ACCESS;
  return readPolicyFile(file, { cwd: Deno.cwd(), home: env.HOME || homedir() });
}

/**
 * The policy in force for `portal doctor`: none, or its rules and whether
 * this machine can enforce them (`ok` false, with how to fix it, when not).
 */
export function policyReport(env: Record<string, string>): { ok?: boolean; detail: string } {
  let policy: Policy;
  try {
    policy = policyOf(env);
  } catch (error) {
    if (!(error instanceof PolicyFileError)) throw error;
    return { ok: false, detail: error.message };
  }
  if (policy.file === null) {
    return { detail: "none: programs have your full rights (PORTAL_POLICY or --policy sets one)" };
  }
  const problem = needsSandbox(policy) ? sandboxProblem() : null;
  const rules = JSON.stringify(describePolicy(policy));
  return problem ? { ok: false, detail: `${rules}; cannot be enforced: ${problem}` } : {
    ok: true,
    detail: `${rules}; ${
      needsSandbox(policy) ? "enforced by the kernel (bubblewrap)" : "checked by process_start"
    }`,
  };
}

/** {@link policyOf}, or a message on stderr and the exit the module doc says. */
export function policyOrExit(env: Record<string, string>): Policy {
  let policy: Policy;
  try {
    policy = policyOf(env);
  } catch (error) {
    if (!(error instanceof PolicyFileError)) throw error;
    console.error(`portal: ${error.message}`);
    Deno.exit(2);
  }
  const problem = needsSandbox(policy) ? sandboxProblem() : null;
  if (problem) {
    console.error(
      `portal: cannot start under the policy ${policy.file}: ${problem} Nothing runs ` +
        "unconfined; `portal doctor` checks it again.",
    );
    Deno.exit(1);
  }
  return policy;
}

/** Why programs cannot be confined here, with how to fix it, or null when they can. */
function sandboxProblem(): string | null {
  return NO_SANDBOX ?? bubblewrapProblem();
}
