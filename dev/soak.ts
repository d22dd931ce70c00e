/**
 * Long runs of what the suite checks briefly, with the figures:
 *
 * ```sh
 * deno run -A dev/soak.ts fuzz [CALLS] [SEED]      # default 200000 calls, in rounds of 10000
 * deno run -A dev/soak.ts durability [ROUNDS]      # default 30 SIGKILLs mid-flood (and mid-trickle)
 * ```
 *
 * `fuzz` runs dev/fuzz.ts on one server round after round and prints, per
 * round, the calls, failures, and the server's resident memory and open
 * files (after killing and cleaning up everything), so growth shows. `durability`
 * SIGKILLs servers while a program floods (or writes a line every 5 ms) and
 * prints how far before the kill the last committed line was written. Both
 * exit with 1 if anything failed.
 *
 * @module
 */
import { fuzz } from "./fuzz.ts";
import { killMidFlood } from "./kill_mid_flood.ts";
import { Portal } from "./portal_client.ts";
import { procStatus } from "./process_table.ts";
import { tempDir } from "./temp_dir.ts";

const [mode = "fuzz", first, second] = Deno.args;
let failed = false;

if (mode === "fuzz") {
  const calls = Number(first ?? 200_000);
  const seed = Number(second ?? 1);
  const round = 10_000;
  await using portal = await Portal.start();
  const pid = portal.serverPid;
  const memory = () => procStatus(pid, "VmRSS");
  const files = () => [...Deno.readDirSync(`/proc/${pid}/fd`)].length;
  for (let done = 0; done < calls; done += round) {
    const report = await fuzz(portal, { calls: Math.min(round, calls - done), seed: seed + done });
    await portal.call("process_kill_all");
    for (const { id } of (await portal.call("process_list")).processes) {
      await portal.call("process_cleanup", { id });
    }
    console.log(
      `${done + report.calls} calls: ${report.ms} ms, ${report.refused} refused, ` +
        `${report.started} started, ${report.failures.length} failures; ` +
        `RSS ${Math.round(memory() / 2 ** 20)} MiB, ${files()} open files`,
    );
    for (const failure of report.failures.slice(0, 5)) console.log(`  ${failure}`);
    failed ||= report.failures.length > 0;
  }
} else if (mode === "durability") {
  const rounds = Number(first ?? 30);
  const lags: Record<string, number[]> = { flood: [], trickle: [] };
  for (let i = 0; i < rounds; i++) {
    await using dir = await tempDir();
    const pauseMs = i % 2 ? 5 : 0;
    // Longer than the commit interval: some output is always older than the promise.
    const after = await killMidFlood(`${dir.path}/records.db`, 250 + (i * 97) % 1000, pauseMs);
    const kind = pauseMs ? "trickle" : "flood";
    lags[kind].push(after.lagMs);
    const ok = after.integrity === "ok" && after.gap === -1 && after.lines > 0;
    failed ||= !ok;
    console.log(
      `${kind}: ${after.lines} lines, ${(after.bytes / 1e6).toFixed(1)} MB, last committed ` +
        `${after.lagMs} ms before the kill, integrity ${after.integrity}, gap ${after.gap}`,
    );
  }
  for (const [kind, values] of Object.entries(lags)) {
    const sorted = values.sort((a, b) => a - b);
    console.log(
      `${kind}: lag median ${sorted[sorted.length >> 1]} ms, max ${sorted.at(-1)} ms ` +
        `over ${sorted.length} kills`,
    );
  }
} else {
  console.error("usage: deno run -A dev/soak.ts fuzz [CALLS] [SEED] | durability [ROUNDS]");
  Deno.exit(2);
}
if (failed) Deno.exit(1);
