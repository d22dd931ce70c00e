/**
 * Retention: `yes` floods on pipes for 60 s under the default cap
 * (`PORTAL_MAX_OUTPUT_BYTES`, 64 MiB); the database file's size is sampled
 * every second. Goal: the file stops growing at the cap (no growth over the
 * last 50 s beyond a page-sized slack, and at most twice the cap).
 *
 * Run: deno run -A bench/retention.ts [seconds]
 *
 * @module
 */
import { delay } from "../src/async.ts";
import { Portal } from "../dev/portal_client.ts";
import { DEFAULT_MAX_OUTPUT_BYTES } from "../src/limits.ts";
import { mb, procIo, row } from "./lib.ts";

const SECONDS = Number(Deno.args[0] ?? 60);
const SETTLED_AFTER = 10;
const CAP = DEFAULT_MAX_OUTPUT_BYTES;

await using portal = await Portal.start();
const pid = portal.serverPid;
const id = await portal.spawn("yes", ["flood line of text"]);
const sizes: number[] = [];
const started = performance.now();
for (let s = 1; s <= SECONDS; s++) {
  await delay(started + s * 1000 - performance.now());
  sizes.push(Deno.statSync(portal.dbPath).size);
}
const { io_count } = await portal.call("process_inspect", { id });
const written = procIo(pid, "wchar");
await portal.call("process_kill", { id });
const settled = sizes[SETTLED_AFTER - 1];
const final = sizes[sizes.length - 1];
const growth = final - settled;
row(
  "6 retention",
  `database file during ${SECONDS} s of yes on pipes, cap ${mb(CAP)} (${io_count} records, ` +
    `${mb(written)} written by the server)`,
  `${mb(settled)} at ${SETTLED_AFTER} s, ${mb(final)} at ${SECONDS} s (max ${
    mb(Math.max(...sizes))
  })`,
  "stops growing, ≤ 2× cap",
  growth <= 1 << 20 && Math.max(...sizes) <= 2 * CAP,
);
