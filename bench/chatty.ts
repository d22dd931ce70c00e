/**
 * Calls under a load of chatty programs: 200 PTYs, each printing a line
 * every 10 ms, then python3 steps on one more PTY (one process_write each,
 * its reply holding the answer and the prompt) and process_list calls, one
 * after the other. Twice: the programs a perl loop (a line and a sleep: what
 * the server must take in, 20,000 lines a second), then a shell loop of
 * `echo` and `sleep`, whose forks keep every CPU busy. Beside the figures:
 * the server's CPU time and its main thread's wake-ups per second (voluntary
 * context switches), and how long per second that thread waited for a CPU.
 *
 * Run: deno run -A bench/chatty.ts [programs] [steps]
 *
 * @module
 */
import { Portal } from "../dev/portal_client.ts";
import { ms, percentile, row } from "./lib.ts";

const PROGRAMS = Number(Deno.args[0] ?? 200);
const STEPS = Number(Deno.args[1] ?? 50);

/** The main thread's counters: CPU time (ms), voluntary switches, time runnable but waiting. */
function counters(pid: number) {
  const task = `/proc/${pid}/task/${pid}`;
  const stat = Deno.readTextFileSync(`${task}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  const status = Deno.readTextFileSync(`${task}/status`);
  const switches = Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)![1]);
  const waited = Number(Deno.readTextFileSync(`${task}/schedstat`).split(" ")[1]) / 1e6;
  return { cpuMs: ticks * 10, switches, waited, at: performance.now() };
}

const LOOPS = [
  {
    name: "a perl loop",
    command: "perl",
    args: [
      "-e",
      '$| = 1; sleep 1; while (1) { print "tick\\n"; select(undef, undef, undef, 0.01) }',
    ],
  },
  {
    name: "a shell loop (forks: every CPU busy)",
    command: "sh",
    // The loops begin once all have started: the forks slow every start down.
    args: ["-c", "sleep 5; while :; do echo tick; sleep 0.01; done"],
  },
];

for (const loop of LOOPS) await measure(loop);

async function measure(loop: (typeof LOOPS)[number]): Promise<void> {
  await using portal = await Portal.start();
  const pid = portal.serverPid;
  for (let i = 0; i < PROGRAMS; i++) {
    await portal.call("process_start", { command: loop.command, args: loop.args, pty: true });
  }
  // Let every loop get going.
  await new Promise((r) => setTimeout(r, loop.command === "sh" ? 7000 : 2000));
  const { id } = await portal.call("process_start", {
    command: "python3",
    args: ["-q"],
    pty: true,
    wait: "ready",
  });
  const before = counters(pid);
  const steps: number[] = [];
  const lists: number[] = [];
  let early = 0;
  for (let i = 0; i < STEPS; i++) {
    const a = 1000 + i;
    const started = performance.now();
    const { output } = await portal.call("process_write", { id, content: `${a}*7\n` });
    steps.push(performance.now() - started);
    if (!output.includes(String(a * 7)) || !/>>> $/.test(output)) early++;
    const listed = performance.now();
    await portal.call("process_list");
    lists.push(performance.now() - listed);
  }
  const after = counters(pid);
  const seconds = (after.at - before.at) / 1000;
  const per = (x: number) => (x / seconds).toFixed(0);
  const load = `${per(after.cpuMs - before.cpuMs)} ms CPU/s, ${
    per(after.switches - before.switches)
  } wake-ups/s, waited for a CPU ${per(after.waited - before.waited)} ms/s`;
  await portal.call("process_kill_all");
  console.error(`${loop.name}: server's main thread during the calls: ${load}`);
  const p50 = percentile(steps, 0.5);
  row(
    "10 chatty load",
    `python3 step (PTY) beside ${PROGRAMS} PTYs printing every 10 ms (${loop.name}), p50 (p95, max), ${STEPS} steps`,
    `${ms(p50)} (${ms(percentile(steps, 0.95))}, ${ms(Math.max(...steps))}), ${early} early; ` +
      `server ${load}`,
    "p50 < 30 ms, 0 early",
    p50 < 30 && early === 0,
  );
  row(
    "10 chatty load",
    `process_list of ${
      PROGRAMS + 1
    } processes beside them (${loop.name}), p95 (p50), ${STEPS} calls`,
    `${ms(percentile(lists, 0.95))} (${ms(percentile(lists, 0.5))})`,
    "(report)",
    true,
  );
}
