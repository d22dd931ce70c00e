/**
 * What a person's policy costs (issue 32): process_start of `echo` to its
 * first byte, and a python3 step on a PTY and on pipes, under a
 * workspace-write policy with network none (every program inside
 * bubblewrap) and without one. Both run in one host: two clients (doors)
 * of it, one started with `PORTAL_POLICY`; the host serves each client's
 * calls itself, so one process runs both, as a person's Portal does.
 *
 * On a shared machine the noise is larger than the difference, and it comes
 * in two kinds, both handled so:
 * - load that comes and goes: every sample is taken in a pair, one from each
 *   client, the order swapped from pair to pair (ABBA), and the figure is a
 *   median of the pairs' differences;
 * - what favours one process for as long as it lives (its core, its
 *   cache): the host serves both sides alike, but each program is one side's
 *   alone. So the run is made of blocks, each with new programs, and the
 *   interval comes from the spread of the blocks' figures (a 95% interval of
 *   their median; with 10 blocks or fewer, from the smallest to the largest).
 *
 * Goals: a start at most 20 ms slower; a step no slower: the interval's
 * upper end at most +0.05 ms (a slowdown beyond 5% of a 1 ms step ruled out).
 *
 * Run: deno run -A bench/policy.ts [blocks, default 48] [step pairs per block, default 60]
 *
 * @module
 */
import { endHost, Portal } from "../dev/portal_client.ts";
import { tempDir } from "../dev/temp_dir.ts";
import { median, medianInterval, ms, row } from "./lib.ts";

const BLOCKS = Number(Deno.args[0] ?? 48);
const STEPS = Number(Deno.args[1] ?? 60);
/** Start pairs per block. */
const STARTS = 8;
/** Pairs taken first in each block and left out: first runs are slow. */
const WARMUP = 3;

if (Deno.build.os !== "linux") {
  row("32 policy", "start and step under a policy", "not run: Linux only", "-", true);
  Deno.exit(0);
}

/** Samples of one measure: all of them, each server's, and each block's median difference. */
class Measure {
  under: number[] = [];
  without: number[] = [];
  blocks: number[] = [];

  add(under: number[], without: number[]) {
    this.under.push(...under);
    this.without.push(...without);
    this.blocks.push(median(under.map((x, i) => x - without[i])));
  }

  /** Both medians, then the median of the blocks' differences and its interval. */
  figure() {
    const { median: d, low, high } = medianInterval(this.blocks);
    // A step's difference is a few hundredths of a millisecond: three decimals.
    const signed = (x: number) =>
      `${x < 0 ? "−" : "+"}${Math.abs(x) < 1 ? `${Math.abs(x).toFixed(3)} ms` : ms(Math.abs(x))}`;
    return {
      text: `${ms(median(this.under))} vs ${ms(median(this.without))}: ${signed(d)} ` +
        `(${signed(low)} … ${signed(high)})`,
      d,
      high,
    };
  }
}

const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ")[0];
const root = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "portal-bench-policy-" });
try {
  const file = `${root}/policy.json`;
  await Deno.writeTextFile(
    file,
    JSON.stringify({ mode: "workspace-write", workspace: [root], network: "none" }),
  );
  const loadBefore = load();
  const starts = new Measure();
  const ptySteps = new Measure();
  const pipeSteps = new Measure();
  await using dir = await tempDir("portal-bench-policy-host-");
  // Ended after both clients have closed (the last declared is disposed of first).
  await using _host = { [Symbol.asyncDispose]: () => endHost(dir.path) };
  await using free = await Portal.start({ cwd: root, dir: dir.path });
  await using boxed = await Portal.start({
    cwd: root,
    dir: dir.path,
    env: { PORTAL_POLICY: file },
  });

  /** `count` pairs of `sample`, after {@link WARMUP}: the one under the policy first in every other. */
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
    return [under, without] as const;
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

  /** Milliseconds of python3 steps (process_write of a product to its answer and prompt). */
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

  for (let block = 0; block < BLOCKS; block++) {
    starts.add(...await pairs(STARTS, start));
    ptySteps.add(...await steps(true));
    pipeSteps.add(...await steps(false));
  }
  const when = `${BLOCKS} blocks of new programs, one host, load ${loadBefore}→${load()}`;
  console.error(
    "each block's difference, ms:",
    JSON.stringify(
      { starts, ptySteps, pipeSteps },
      (key, value) =>
        key === "under" || key === "without"
          ? undefined
          : typeof value === "number"
          ? Number(value.toFixed(3))
          : value,
    ),
  );

  const startFigure = starts.figure();
  row(
    "32 policy",
    `process_start → echo's output, p50 of ${BLOCKS}×${STARTS} pairs: under bubblewrap vs ` +
      `without (${when})`,
    startFigure.text,
    "≤ +20 ms",
    startFigure.d <= 20,
  );
  for (const [name, measure] of [["PTY", ptySteps], ["pipes", pipeSteps]] as const) {
    const stepFigure = measure.figure();
    row(
      "32 policy",
      `python3 step (${name}), p50 of ${BLOCKS}×${STEPS} pairs: under bubblewrap vs without ` +
        `(${when})`,
      stepFigure.text,
      "no slower: interval's upper end ≤ +0.05 ms",
      stepFigure.high <= 0.05,
    );
  }
} finally {
  await Deno.remove(root, { recursive: true });
}
