/**
 * Durability's timing: how long before a SIGKILL the last committed line was
 * written, over several kills mid-flood (and mid-trickle). The store commits
 * every COMMIT_INTERVAL_MS, so that is the promise; the slack is for a loaded
 * 2-core machine. Whether the file opens cleanly and holds every line up to
 * the last is tested (tests/e2e/durability_test.ts); here is only how recent
 * that last line is. `dev/soak.ts durability` does the same many times.
 *
 * Run: deno run -A --lock=dev/deno.lock bench/durability.ts [kills]
 *
 * @module
 */
import { killMidFlood } from "../dev/kill_mid_flood.ts";
import { tempDir } from "../dev/temp_dir.ts";
import { COMMIT_INTERVAL_MS } from "../src/core/store/record_store.ts";
import { median, ms, row } from "./lib.ts";

const KILLS = Number(Deno.args[0] ?? 6);
const lags: number[] = [];
for (let i = 0; i < KILLS; i++) {
  await using dir = await tempDir("portal-bench-");
  // Floods of different lengths, half of them a trickle (one line every 5 ms).
  const after = await killMidFlood(`${dir.path}/records.db`, 300 + (i * 97) % 700, i % 2 ? 5 : 0);
  if (after.integrity !== "ok" || after.gap !== -1) {
    throw new Error(
      `kill ${i}: integrity ${after.integrity}, first line out of place ${after.gap}`,
    );
  }
  lags.push(after.lagMs);
}
const worst = Math.max(...lags);
row(
  "durability",
  `a server SIGKILLed mid-flood (${KILLS} kills, half a trickle): how long before the kill ` +
    `the last committed line was written, median and max`,
  `${ms(median(lags))}, max ${ms(worst)}`,
  `max < ${COMMIT_INTERVAL_MS + 1000} ms (the commit interval and slack for load)`,
  worst < COMMIT_INTERVAL_MS + 1000,
);
