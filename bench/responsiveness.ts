/**
 * Responsiveness under a flood: while `yes` floods (on pipes, then on a PTY),
 * process_inspect of another process and a write-and-wait step on a PTY
 * `cat` (one process_write with its default wait, whose reply holds the
 * echo), every 20 ms for a few seconds; then again with a busy loop on every
 * CPU beside the server. Goal: p99 < 20 ms for both. Beside each figure, how
 * long per second the server's main thread waited for a CPU while runnable
 * (`/proc/<pid>/schedstat`): under the hogs that wait, not the server's own
 * work, is what a call mostly waits for. Last, the floor under the same
 * hogs: a bare Deno process echoing each line of its stdin, at the same pace.
 *
 * Run: deno run -A bench/responsiveness.ts [seconds] [--no-host]
 *
 * @module
 */
import { delay } from "../src/async.ts";
import { Portal } from "../dev/portal_client.ts";
import { cpuHogs, ms, percentile, row } from "./lib.ts";

const SECONDS = Number(Deno.args.find((a) => !a.startsWith("--")) ?? 5);
const NO_HOST = Deno.args.includes("--no-host");
const CPUS = navigator.hardwareConcurrency;

async function measure(pty: boolean, hogs: boolean): Promise<void> {
  await using portal = await Portal.start({ noHost: NO_HOST });
  const idle = await portal.spawn("sleep", ["1000"]);
  const echo = await portal.spawn("cat", [], { pty: true });
  const stopHogs = hogs ? cpuHogs(CPUS) : async () => {};
  const flood = await portal.spawn("yes", ["flood line of text"], { pty });
  const waitedBefore = runDelayMs(portal.serverPid);
  const inspect: number[] = [];
  const roundTrip: number[] = [];
  const from = performance.now();
  const until = from + SECONDS * 1000;
  try {
    for (let i = 0; performance.now() < until; i++) {
      const started = performance.now();
      await portal.call("process_inspect", { id: idle });
      inspect.push(performance.now() - started);
      const sent = performance.now();
      const { output } = await portal.call("process_write", { id: echo, content: `k${i}\n` });
      roundTrip.push(performance.now() - sent);
      // The reply holds cat's copy of the line (its echo is left out): without it, an error.
      if (!output.includes(`k${i}\n`)) throw new Error(`step ${i}: no line in ${output}`);
      await delay(20 - (performance.now() - started));
    }
  } finally {
    await stopHogs();
  }
  const waited = (runDelayMs(portal.serverPid) - waitedBefore) /
    ((performance.now() - from) / 1000);
  const { io_count } = await portal.call("process_inspect", { id: flood });
  await portal.call("process_kill_all");
  const where = `${pty ? "PTY" : "pipe"} flood${hogs ? `, ${CPUS} CPU hogs` : ""}${
    NO_HOST ? " (--no-host)" : ""
  }`;
  for (
    const [what, xs] of [["process_inspect", inspect], ["write → echo step", roundTrip]] as const
  ) {
    const p99 = percentile(xs, 0.99);
    row(
      "3 responsiveness",
      `${what} p99 during a ${where} (${xs.length} samples, ${io_count} flood records)`,
      `${ms(p99)} (median ${ms(percentile(xs, 0.5))}; waited for a CPU ${waited.toFixed(0)} ms/s)`,
      "< 20 ms",
      p99 < 20,
    );
  }
}

/** Milliseconds the thread `pid` (a process's main thread) has spent runnable but not running. */
function runDelayMs(pid: number): number {
  return Number(Deno.readTextFileSync(`/proc/${pid}/task/${pid}/schedstat`).split(" ")[1]) / 1e6;
}

/** A line echoed by a bare Deno process every 20 ms beside the hogs: what no server goes below. */
async function floor(): Promise<void> {
  const echo = new Deno.Command(Deno.execPath(), {
    args: ["eval", "process.stdin.on('data', (chunk) => process.stdout.write(chunk))"],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = echo.stdin.getWriter();
  const reader = echo.stdout.getReader();
  const line = new TextEncoder().encode(`{"jsonrpc":"2.0","id":1,"result":{}}\n`);
  await writer.write(line);
  await reader.read();
  const stopHogs = cpuHogs(CPUS);
  const times: number[] = [];
  const until = performance.now() + SECONDS * 1000;
  try {
    while (performance.now() < until) {
      const sent = performance.now();
      await writer.write(line);
      await reader.read();
      times.push(performance.now() - sent);
      await delay(20 - (performance.now() - sent));
    }
  } finally {
    await stopHogs();
    await writer.close();
    await echo.status;
  }
  row(
    "3 responsiveness",
    `a bare Deno process echoing a line, ${CPUS} CPU hogs: p99 (${times.length} samples)`,
    `${ms(percentile(times, 0.99))} (median ${ms(percentile(times, 0.5))})`,
    "(floor)",
    true,
  );
}

for (const hogs of [false, true]) for (const pty of [false, true]) await measure(pty, hogs);
await floor();
