/**
 * Step latency: one process_write per step, from the call to the reply that
 * holds the answer and the next prompt, through the whole server (the SDK
 * client over stdio), for python3 on a PTY (also with a `prompt` and with an
 * `expect`, for what matching costs) and on pipes, bash and sqlite3.
 * A reply without the answer or the prompt is an early return (goal: none).
 * Beside it, in the same run, the same python3 steps through the peers that
 * are installed (see peers.ts): Desktop Commander needs one call per step.
 *
 * Run: deno run -A bench/step_latency.ts [steps]
 */
import { bashStart, Portal } from "../dev/portal_client.ts";
import { row as tableRow } from "./lib.ts";
import { type PeerRun, runPeers } from "./peers.ts";

const STEPS = Number(Deno.args[0] ?? 30);
/** Steps before the measured ones: the first answers pay for imports and caches. */
const WARMUP = 3;

interface Scenario {
  name: string;
  start: Record<string, unknown>;
  /** The input of step `i`, what its answer holds, and how the prompt ends the reply. */
  step(i: number): { content: string; want: string };
  prompt: RegExp;
  /** More arguments of each process_write (an `expect`). */
  write?: Record<string, unknown>;
}

const product = (i: number) => ({ a: 1000 + 37 * i, b: 7 + i });
const pythonStep = (i: number) => {
  const { a, b } = product(i);
  return { content: `${a}*${b}\n`, want: String(a * b) };
};

const SCENARIOS: Scenario[] = [
  {
    name: "python3 (PTY)",
    start: { command: "python3", args: ["-q"], pty: true },
    step: pythonStep,
    prompt: />>> $/,
  },
  {
    // The cost of matching: a prompt pattern tested on every check, an expect on every chunk.
    name: "python3 (PTY), prompt",
    start: { command: "python3", args: ["-q"], pty: true, prompt: "^>>> $" },
    step: pythonStep,
    prompt: />>> $/,
  },
  {
    name: "python3 (PTY), expect",
    start: { command: "python3", args: ["-q"], pty: true },
    step: pythonStep,
    prompt: />>> $/,
    write: { expect: "^>>> $" },
  },
  {
    name: "python3 (pipes)",
    start: { command: "python3", args: ["-i", "-q"] },
    step: pythonStep,
    prompt: />>> /,
  },
  {
    name: "bash (PTY)",
    start: bashStart(),
    step: (i) => {
      const { a, b } = product(i);
      return { content: `echo $((${a}*${b}))\n`, want: String(a * b) };
    },
    prompt: /\$ $/,
  },
  {
    name: "sqlite3 (PTY)",
    start: { command: "sqlite3", pty: true },
    step: (i) => {
      const { a, b } = product(i);
      return { content: `select ${a}*${b};\n`, want: String(a * b) };
    },
    prompt: /sqlite> $/,
  },
];

interface Row {
  name: string;
  times: number[];
  calls: number[];
  early: number | null;
  note?: string;
}

async function runScenario(portal: Portal, scenario: Scenario): Promise<Row> {
  const { id } = await portal.call("process_start", { ...scenario.start, wait: "ready" });
  const row: Row = { name: `Portal ${scenario.name}`, times: [], calls: [], early: 0 };
  for (let i = 0; i < WARMUP + STEPS; i++) {
    const { content, want } = scenario.step(i);
    const start = performance.now();
    let reply = await portal.call("process_write", { id, content, ...scenario.write });
    let calls = 1;
    let text = reply.output;
    const early = !text.includes(want) || !scenario.prompt.test(text);
    // An early reply would cost the agent more calls: count them, to the full answer.
    while (!text.includes(want) || !scenario.prompt.test(text)) {
      reply = await portal.call("process_read_new", { id, wait: "ready" });
      text += reply.output;
      calls++;
    }
    if (i < WARMUP) continue;
    row.times.push(performance.now() - start);
    row.calls.push(calls);
    if (early) row.early!++;
  }
  await portal.call("process_kill", { id });
  return row;
}

/** A call that waits for nothing, for scale: the round trip through the SDK and the server. */
async function roundTrip(portal: Portal): Promise<Row> {
  const { id } = await portal.call("process_start", { command: "sleep", args: ["60"] });
  const row: Row = {
    name: "Portal process_inspect (no wait, for scale)",
    times: [],
    calls: [],
    early: null,
  };
  for (let i = 0; i < WARMUP + STEPS; i++) {
    const start = performance.now();
    await portal.call("process_inspect", { id });
    if (i < WARMUP) continue;
    row.times.push(performance.now() - start);
    row.calls.push(1);
  }
  await portal.call("process_kill", { id });
  return row;
}

function quantile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const exprs = Array.from({ length: WARMUP + STEPS }, (_, i) => {
  const { a, b } = product(i);
  return { expr: `${a}*${b}`, want: String(a * b) };
});

const rows: Row[] = [];
{
  await using portal = await Portal.start();
  for (const scenario of SCENARIOS) rows.push(await runScenario(portal, scenario));
  rows.push(await roundTrip(portal));
}
const { runs, notes } = await runPeers(exprs);
rows.push(...runs.map((r: PeerRun) => ({ ...r, early: null, note: `${r.wrong} wrong` })));

const fmt = (n: number) => n.toFixed(n < 10 ? 2 : 1);
// The details go to stderr; bench/main.ts's table gets a row per Portal scenario.
console.error(`${STEPS} steps each (after ${WARMUP} warm-up steps); ms per step, one run`);
console.error(
  "| system | p50 ms | p95 ms | calls/step | early returns |\n|---|---:|---:|---:|---:|",
);
for (const row of rows) {
  console.error(
    `| ${row.name} | ${fmt(quantile(row.times, 0.5))} | ${fmt(quantile(row.times, 0.95))} | ` +
      `${quantile(row.calls, 0.5)} (max ${Math.max(...row.calls)}) | ` +
      `${row.early ?? "–"}${row.note ? ` (${row.note})` : ""} |`,
  );
}
for (const row of rows.slice(0, SCENARIOS.length)) {
  const p50 = quantile(row.times, 0.5);
  const p95 = quantile(row.times, 0.95);
  const calls = Math.max(...row.calls);
  tableRow(
    "8 step latency",
    `one process_write per step: ${row.name.replace("Portal ", "")}, p50 (p95), ${STEPS} steps`,
    `${fmt(p50)} ms (${fmt(p95)}), ${row.early} early, ≤ ${calls} call`,
    "p50 ≤ 2.0 ms, p95 ≤ 3 ms, 0 early, 1 call",
    p50 <= 2 && p95 <= 3 && row.early === 0 && calls === 1,
  );
}
const portalPython = quantile(rows[0].times, 0.5);
for (const run of runs) {
  const times = quantile(run.times, 0.5) / portalPython;
  tableRow(
    "8 step latency",
    `${run.name}: python3 step p50 vs Portal's (PTY)`,
    `${fmt(quantile(run.times, 0.5))} ms = ${times.toFixed(1)}× Portal's`,
    run.name.startsWith("Desktop Commander") ? "≥ 25× Portal's" : "(peer)",
    !run.name.startsWith("Desktop Commander") || times >= 25,
  );
}
for (const note of notes) console.error(`note: ${note}`);
