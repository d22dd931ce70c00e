/**
 * What the tests of a person's policy share (tests/e2e/policy_test.ts,
 * policy_rules_test.ts): a test that runs where real bubblewrap does, a
 * workspace and a place beside it outside /tmp, a Portal under a policy
 * file, and a script run in it to its end.
 *
 * @module
 */
import { Portal, type StartOptions } from "../../dev/portal_client.ts";
import { assertEquals } from "./assert.ts";

/** bwrap where Debian's package puts it; .ci/run installs it. */
export const HAS_BWRAP = (() => {
  try {
    return Deno.statSync("/usr/bin/bwrap").isFile;
  } catch {
    return false;
  }
})();

/**
 * A test of a policy on Linux with bubblewrap. The v1 SDK client's close
 * leaves a 2 s timer behind (unref'd), which a fast test outlives: the
 * sanitizers are off, as for the browser tests. `ignore`: another reason
 * it cannot run here (the browser missing, not root).
 */
export function policyTest(name: string, fn: () => Promise<void>, ignore = false): void {
  ignore ||= Deno.build.os !== "linux" || !HAS_BWRAP;
  Deno.test({ name, ignore, fn, sanitizeOps: false, sanitizeResources: false });
}

/** A workspace and a directory beside it, outside /tmp (a sandbox's /tmp is its own). */
export async function places() {
  const root = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "portal-policy-" });
  const workspace = `${root}/ws`;
  const outside = `${root}/outside`;
  await Deno.mkdir(workspace);
  await Deno.mkdir(outside);
  return {
    root,
    workspace,
    outside,
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** A Portal whose policy file (JSON, at `file`) holds `rules`. */
export async function startUnder(
  file: string,
  rules: Record<string, unknown>,
  options: { cwd: string } & Pick<StartOptions, "dir" | "env">,
): Promise<Portal> {
  await Deno.writeTextFile(file, JSON.stringify(rules, null, 2));
  return Portal.start({
    env: { ...options.env, PORTAL_POLICY: file },
    cwd: options.cwd,
    dir: options.dir,
  });
}

/** Runs `script` in `bash -c` under `portal`, to its end; its output and exit code. */
export async function run(
  portal: Portal,
  script: string,
): Promise<{ output: string; code: number }> {
  const reply = await portal.call("process_start", {
    command: "bash",
    args: ["-c", script],
    wait: "exit",
    wait_ms: 20_000,
  });
  assertEquals(reply.reason, "exit", `bash -c ${script} did not end: ${JSON.stringify(reply)}`);
  return { output: reply.output ?? "", code: reply.exit_code };
}

/** Whether `path` names anything (a link to nothing too). */
export function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
