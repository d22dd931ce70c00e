/**
 * Bounded memory. (1) Pipes: a program writes 1 GiB and keeps running; the
 * server's peak RSS (VmHWM) beside a bare Deno reader's reading the same
 * (goal: within 1.5×: no chunk outlives its write to the store). (2) PTYs:
 * the server's RSS with 100 idle PTYs (goal ≤ 150 MB), and with 100 and
 * with 500 PTYs, each having printed 2,000 lines (a full scrollback: the
 * emulator keeps 1,000 lines a screen, older ones stay in the records) and
 * still running (goal for 500: ≤ 500 MB).
 *
 * Run: deno run -A bench/memory.ts [ptys...]   (default: 100 500)
 *
 * @module
 */
import { Portal } from "../dev/portal_client.ts";
import { dataFile, mb, procStatus, row } from "./lib.ts";

// The bare reader: this script run again with --bare, reporting its own peak RSS.
if (Deno.args[0] === "--bare") {
  const child = new Deno.Command("cat", { args: Deno.args.slice(1), stdout: "piped" }).spawn();
  let bytes = 0;
  for await (const chunk of child.stdout) bytes += chunk.length;
  await child.status;
  console.log(JSON.stringify({ bytes, peak: procStatus(Deno.pid, "VmHWM") }));
  Deno.exit(0);
}

const counts = Deno.args.length > 0 ? Deno.args.map(Number) : [100, 500];
const GIB_PARTS = 4;

async function pipes(): Promise<void> {
  await using data = await dataFile(1024 / GIB_PARTS);
  const files = Array(GIB_PARTS).fill(data.path);
  const bare = new Deno.Command(Deno.execPath(), {
    // Its packages are in dev/deno.lock; deno.lock holds only the server's.
    args: [
      "run",
      "-A",
      `--lock=${new URL("../dev/deno.lock", import.meta.url).pathname}`,
      new URL(import.meta.url).pathname,
      "--bare",
      ...files,
    ],
    stdout: "piped",
  });
  const { bytes, peak: barePeak } = JSON.parse(
    new TextDecoder().decode((await bare.output()).stdout),
  );
  if (bytes !== data.bytes * GIB_PARTS) throw new Error(`bare reader got ${bytes} bytes`);

  await using portal = await Portal.start();
  const pid = portal.serverPid;
  const id = await portal.spawn("sh", [
    "-c",
    `cat ${files.join(" ")}; echo DONE >&2; exec sleep 600`,
  ]);
  let sampled = 0;
  await portal.readUntil(id, (text) => {
    sampled = Math.max(sampled, procStatus(pid, "VmRSS"));
    return text.includes("DONE");
  }, { source: "stderr", timeoutMs: 120_000 });
  const peak = procStatus(pid, "VmHWM");
  await portal.call("process_kill", { id });
  const ratio = peak / barePeak;
  row(
    "5 memory",
    "pipes: server peak RSS while a running program writes 1 GiB vs a bare Deno reader's",
    `${mb(peak)} vs ${mb(barePeak)} = ${ratio.toFixed(2)}× (sampled max ${mb(sampled)})`,
    "≤ 1.5×",
    ratio <= 1.5,
  );
}

async function ptys(count: number): Promise<void> {
  await using portal = await Portal.start();
  const pid = portal.serverPid;
  const idle = procStatus(pid, "VmRSS");
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    ids.push(await portal.spawn("sh", ["-c", "seq 1 2000; exec cat"], { pty: true }));
  }
  // Every screen parsed to its end: its scrollback is full.
  for (const id of ids) await portal.screenUntil(id, (s) => s.lines.includes("2000"), 60_000);
  const rss = procStatus(pid, "VmRSS");
  await portal.call("process_kill_all");
  const goal = count === 500 ? 500e6 : Infinity;
  row(
    "5 memory",
    `RSS with ${count} PTYs, each with a full scrollback (2,000 lines printed, 1,000 kept)`,
    `${mb(rss)} (idle ${mb(idle)}; ${mb((rss - idle) / count)} per PTY)`,
    goal === Infinity ? "(report)" : "≤ 500 MB",
    rss <= goal,
  );
}

/** 100 terminals that printed nothing yet (a shell at its prompt, `cat`). */
async function idlePtys(count: number): Promise<void> {
  await using portal = await Portal.start();
  const pid = portal.serverPid;
  const ids: number[] = [];
  for (let i = 0; i < count; i++) ids.push(await portal.spawn("cat", [], { pty: true }));
  for (const id of ids) await portal.screenUntil(id, () => true, 60_000);
  const rss = procStatus(pid, "VmRSS");
  await portal.call("process_kill_all");
  row(
    "5 memory",
    `RSS with ${count} idle PTYs (cat, nothing printed; each screen looked at once)`,
    mb(rss),
    "≤ 150 MB",
    rss <= 150e6,
  );
}

await pipes();
await idlePtys(100);
for (const count of counts) await ptys(count);
