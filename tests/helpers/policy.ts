/**
 * The fixtures of the tests of a person's policy (real bubblewrap, through
 * the real server): a test that runs where bwrap is, a workspace beside a
 * directory outside it, a Portal under rules written to a file, and a script
 * run under them to its end. Each can serve a throwaway other user, so the
 * same test runs as root and as an unprivileged user.
 *
 * @module
 */
import { chown, Portal } from "../../dev/portal_client.ts";
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
 * sanitizers are off, as for the browser tests. `needs`: false to skip it
 * (reported as ignored) where what it needs is missing.
 */
export function policyTest(name: string, fn: () => Promise<void>, needs = true): void {
  const ignore = Deno.build.os !== "linux" || !HAS_BWRAP || !needs;
  Deno.test({ name, ignore, fn, sanitizeOps: false, sanitizeResources: false });
}

/** A user other than root that a server runs as (tests/helpers/other_user.ts) and its Deno cache. */
export interface RunAs {
  name: string;
  denoDir: string;
}

/**
 * A workspace and a directory beside it, outside /tmp (a sandbox's /tmp is
 * its own), made for `user` (default: this process's).
 */
export async function places(user?: RunAs) {
  const root = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "portal-policy-" });
  const workspace = `${root}/ws`;
  const outside = `${root}/outside`;
  await Deno.mkdir(workspace);
  await Deno.mkdir(outside);
  if (user) await chown(root, user.name);
  return {
    root,
    workspace,
    outside,
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** A Portal whose policy file (JSON, at `file`) holds `rules`, run as `options.user` if given. */
export async function startUnder(
  file: string,
  rules: Record<string, unknown>,
  options: { cwd: string; dir?: string; env?: Record<string, string>; user?: RunAs },
): Promise<Portal> {
  await Deno.writeTextFile(file, JSON.stringify(rules, null, 2));
  if (options.user) await chown(file, options.user.name);
  return Portal.start({
    env: { PORTAL_POLICY: file, ...options.env },
    cwd: options.cwd,
    dir: options.dir,
    user: options.user,
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
