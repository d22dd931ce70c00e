/**
 * The host's costs, side by side in one run:
 *
 * - initialize: spawn → the reply to `initialize`, for a door whose host
 *   runs, for a door that must start its host (cold), and for the
 *   single-process server (`--no-host`), medians of 7 interleaved rounds.
 *   Goals: 200 and 400 ms.
 * - a python3 step (process_write → the answer and the prompt) through a door
 *   and through `--no-host`, alternating, p50 of each: the door must
 *   add under 0.3 ms.
 * - the host's RSS holding 100 kept idle PTYs (`cat`), their client gone.
 *
 * Run: deno run -A bench/host.ts [steps]
 *
 * @module
 */
import { endHost, hostPid, initializeRequest, Portal } from "../dev/portal_client.ts";
import { spawnServer } from "../dev/raw_lines.ts";
import { tempDir } from "../dev/temp_dir.ts";
import { waitFor } from "../dev/wait.ts";
import { median, ms, percentile, procStatus, row } from "./lib.ts";

const ROUNDS = 7;
const STEPS = Number(Deno.args[0] ?? 200);
const KEPT = 100;

const INITIALIZE = JSON.stringify(initializeRequest("bench")) + "\n";

/** Milliseconds from spawning `main.ts ARGS` in `dir` to its initialize reply. */
async function initialize(dir: string, args: string[]): Promise<number> {
  const started = performance.now();
  const child = await spawnServer(dir, { args });
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(INITIALIZE));
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    text += decoder.decode(chunk);
    if (text.includes('"id":1')) break;
  }
  const took = performance.now() - started;
  await writer.close();
  await child.status;
  return took;
}

{
  await using dir = await tempDir("portal-bench-host-");
  const times = { running: [] as number[], cold: [] as number[], single: [] as number[] };
  await initialize(dir.path, ["--no-host"]); // warm Deno's caches
  for (let i = 0; i < ROUNDS; i++) {
    await endHost(dir.path);
    times.cold.push(await initialize(dir.path, []));
    times.running.push(await initialize(dir.path, []));
    times.single.push(await initialize(dir.path, ["--no-host"]));
  }
  await endHost(dir.path);
  const single = median(times.single);
  row(
    "18 host",
    "spawn → initialize reply, door, host running",
    `${ms(median(times.running))} (--no-host: ${ms(single)})`,
    "< 200 ms",
    median(times.running) < 200,
  );
  row(
    "18 host",
    "spawn → initialize reply, door, host started (cold)",
    ms(median(times.cold)),
    "< 400 ms",
    median(times.cold) < 400,
  );
}

/** The time of one python3 step, to the answer and the prompt. */
async function step(portal: Portal, id: number, i: number): Promise<number> {
  const a = 1000 + 37 * i;
  const start = performance.now();
  let text = (await portal.call("process_write", { id, content: `${a}*7\n` })).output;
  while (!text.includes(String(a * 7)) || !/>>> $/.test(text)) {
    text += (await portal.call("process_read_new", { id, wait: "ready" })).output;
  }
  return performance.now() - start;
}

{
  await using door = await Portal.start();
  await using single = await Portal.start({ noHost: true });
  const start = { command: "python3", args: ["-q"], pty: true, wait: "ready" };
  const ids = [
    (await door.call("process_start", start)).id,
    (await single.call("process_start", start)).id,
  ];
  const times: number[][] = [[], []];
  for (let i = 0; i < STEPS + 5; i++) {
    for (const [k, portal] of [door, single].entries()) {
      const took = await step(portal, ids[k], i);
      if (i >= 5) times[k].push(took);
    }
  }
  const [viaDoor, alone] = times.map((xs) => median(xs));
  row(
    "18 host",
    `python3 step p50 through a door vs --no-host (${STEPS} each, alternating; p95 ` +
      `${ms(percentile(times[0], 0.95))} vs ${ms(percentile(times[1], 0.95))})`,
    `${ms(viaDoor)} vs ${ms(alone)}: +${(viaDoor - alone).toFixed(2)} ms`,
    "door adds < 0.3 ms",
    viaDoor - alone < 0.3,
  );
}

{
  await using dir = await tempDir("portal-bench-host-");
  {
    await using client = await Portal.start({ dir: dir.path });
    for (let i = 0; i < KEPT; i++) {
      await client.call("process_start", { command: "cat", pty: true, keep: true });
    }
  }
  const host = hostPid(dir.path)!;
  // Settled: the client has left and nothing more happens.
  const rss = () => procStatus(host, "VmRSS") / 1024;
  const kb = await waitFor("the host's RSS to settle", async () => {
    const before = rss();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return [before, rss()];
  }, { until: ([a, b]) => Math.abs(a - b) < 1024, timeoutMs: 30_000 });
  await endHost(dir.path);
  const mb = kb[1] / 1024;
  row(
    "18 host",
    `RSS of the host holding ${KEPT} kept idle PTYs (cat), no client`,
    `${mb.toFixed(0)} MB`,
    "≤ 150 MB (issue 21's goal for 100 idle PTYs)",
    mb <= 150,
  );
}
