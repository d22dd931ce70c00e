/**
 * What a person's policy costs (issue 32): process_start of `echo` to its
 * first byte, and a python3 step on a PTY and on pipes, under a
 * workspace-write policy with network none (every program inside
 * bubblewrap) and without one. Two servers run side by side and every
 * sample is taken in a pair, one from each, the order swapped from pair to
 * pair (ABBA), so a shared machine's load falls on both alike; the figure is
 * the median of the pairs' differences, with its 95% interval.
 * Goals: a start at most 20 ms slower; a step no slower: the interval's
 * upper end at most +0.05 ms (a slowdown beyond 5% of a 1 ms step ruled out).
 *
 * Run: deno run -A bench/policy.ts [start pairs, default 60] [step pairs, default 1000]
 *
 * @module
 */
import { Portal } from "../dev/portal_client.ts";
import { median, medianDifference, ms, row } from "./lib.ts";

const STARTS = Number(Deno.args[0] ?? 60);
const STEPS = Number(Deno.args[1] ?? 1000);
/** Pairs taken first and left out: the servers' and programs' first runs are slow. */
const WARMUP = 5;

if (Deno.build.os !== "linux") {
  row("32 policy", "start and step under a policy", "not run: Linux only", "-", true);
  Deno.exit(0);
}
const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ")[0];
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
  const loadBefore = load();

  /**
   * `count` pairs of `sample` (after {@link WARMUP} left out): the one under
   * the policy first in every other pair.
   */
  const pairs = async (count: number, sample: (portal: Portal, i: number) => Promise<number>) => {
    const under: number[] = [];
    const without: number[] = [];
    for (let i = 0; i < count + WARMUP; i++) {
      const order = i % 2 === 0 ? [boxed, free] : [free, boxed];
      const took = new Map<Portal, number>();
      for (const portal of order) took.set(portal, await sample(portal, i));
      if (i < WARMUP) continue;
      under.push(took.get(boxed)!);
      without.push(took.get(free)!);
    }
    return { under, without };
  };

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

  /** Milliseconds of python3 steps (process_write of a sum to its answer and prompt). */
  const steps = async (pty: boolean) => {
    const ids = new Map<Portal, string>();
    for (const portal of [free, boxed]) {
      const args = pty ? ["-q"] : ["-q", "-i"];
      const reply = await portal.call("process_start", {
        command: "python3",
        args,
        pty,
        wait: "ready",
      });
      ids.set(portal, reply.id);
    }
    const result = await pairs(STEPS, async (portal, i) => {
      const began = performance.now();
      const reply = await portal.call("process_write", {
        id: ids.get(portal),
        content: `${1000 + i}*7\n`,
      });
      const took = performance.now() - began;
      if (!reply.output.includes(String((1000 + i) * 7))) throw new Error(reply.output);
      return took;
    });
    for (const [portal, id] of ids) await portal.call("process_kill", { id });
    return result;
  };

  const starts = await pairs(STARTS, start);
  const ptySteps = await steps(true);
  const pipeSteps = await steps(false);
  const when = `load ${loadBefore}→${load()}`;

  /** The row's figure: both medians, then the median difference and its interval. */
  const figure = ({ under, without }: { under: number[]; without: number[] }) => {
    const { median: d, low, high } = medianDifference(under, without);
    // A step's difference is a few hundredths of a millisecond: three decimals.
    const signed = (x: number) =>
      `${x < 0 ? "−" : "+"}${Math.abs(x) < 1 ? `${Math.abs(x).toFixed(3)} ms` : ms(Math.abs(x))}`;
    return {
      text: `${ms(median(under))} vs ${ms(median(without))}: ${signed(d)} (95%: ${signed(low)} … ${
        signed(high)
      })`,
      high,
      d,
    };
  };
  const startFigure = figure(starts);
  row(
    "32 policy",
    `process_start → echo's output, p50 of ${STARTS} pairs: under bubblewrap vs without (${when})`,
    startFigure.text,
    "≤ +20 ms",
    startFigure.d <= 20,
  );
  for (const [name, samples] of [["PTY", ptySteps], ["pipes", pipeSteps]] as const) {
    const stepFigure = figure(samples);
    row(
      "32 policy",
      `python3 step (${name}), p50 of ${STEPS} pairs: under bubblewrap vs without (${when})`,
      stepFigure.text,
      "no slower: 95% upper end ≤ +0.05 ms",
      stepFigure.high <= 0.05,
    );
  }
} finally {
  await Deno.remove(root, { recursive: true });
}
