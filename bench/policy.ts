/**
 * What a person's policy costs (issue 32): process_start of `echo` to its
 * first byte, and a python3 step, under a workspace-write policy with
 * network none (every program inside bubblewrap) and without one, the two
 * servers alternated in one run. Goals: a start at most 20 ms slower, a step
 * no slower (within 0.2 ms at the median).
 *
 * Run: deno run -A bench/policy.ts [rounds]
 *
 * @module
 */
import { Portal } from "../dev/portal_client.ts";
import { median, ms, row } from "./lib.ts";

const ROUNDS = Number(Deno.args[0] ?? 20);
const STEPS = 30;

if (Deno.build.os !== "linux") {
  row("32 policy", "start and step under a policy", "not run: Linux only", "-", true);
  Deno.exit(0);
}
const root = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "portal-bench-policy-" });
try {
  const file = `${root}/policy.json`;
  await Deno.writeTextFile(
    file,
    JSON.stringify({ mode: "workspace-write", workspace: [root], network: "none" }),
  );
  await using free = await Portal.start({ cwd: root, noHost: true });
  await using boxed = await Portal.start({
    cwd: root,
    noHost: true,
    env: { PORTAL_POLICY: file },
  });
  const servers = [["without", free], ["under", boxed]] as const;

  /** Milliseconds from process_start's call to the reply holding echo's line. */
  const start = async (portal: Portal) => {
    const began = performance.now();
    const reply = await portal.call("process_start", {
      command: "echo",
      args: ["first byte"],
      wait: "exit",
    });
    const took = performance.now() - began;
    if (!reply.output.includes("first byte")) throw new Error(`no output: ${reply.output}`);
    await portal.call("process_cleanup", { id: reply.id });
    return took;
  };
  const starts = new Map<string, number[]>([["without", []], ["under", []]]);
  for (let i = 0; i < ROUNDS + 2; i++) {
    for (const [name, portal] of servers) {
      const took = await start(portal);
      if (i >= 2) starts.get(name)!.push(took);
    }
  }

  const steps = new Map<string, number[]>([["without", []], ["under", []]]);
  const pythons = await Promise.all(
    servers.map(([, portal]) =>
      portal.call("process_start", { command: "python3", args: ["-q"], pty: true, wait: "ready" })
    ),
  );
  for (let i = 0; i < STEPS + 3; i++) {
    for (const [index, [name, portal]] of servers.entries()) {
      const began = performance.now();
      const reply = await portal.call("process_write", {
        id: pythons[index].id,
        content: `${1000 + i}*7\n`,
      });
      const took = performance.now() - began;
      if (!reply.output.includes(String((1000 + i) * 7))) throw new Error(reply.output);
      if (i >= 3) steps.get(name)!.push(took);
    }
  }
  const [startFree, startBoxed] = [median(starts.get("without")!), median(starts.get("under")!)];
  const [stepFree, stepBoxed] = [median(steps.get("without")!), median(steps.get("under")!)];
  row(
    "32 policy",
    `process_start → echo's output, p50 of ${ROUNDS}: under bubblewrap vs without`,
    `${ms(startBoxed)} vs ${ms(startFree)} (+${ms(startBoxed - startFree)})`,
    "≤ +20 ms",
    startBoxed - startFree <= 20,
  );
  row(
    "32 policy",
    `python3 step, p50 of ${STEPS}: under bubblewrap vs without`,
    `${ms(stepBoxed)} vs ${ms(stepFree)}`,
    "no slower (≤ +0.2 ms)",
    stepBoxed - stepFree <= 0.2,
  );
} finally {
  await Deno.remove(root, { recursive: true });
}
