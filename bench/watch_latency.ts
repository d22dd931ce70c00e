/**
 * The watch page's latency: a python REPL watched in a real headless
 * Chromium prints a line after each of several steps; how long after the
 * step's reply the line shows on the page (polled every 20 ms from here, so
 * a figure may be up to 20 ms late). Goal: within 1 s, the promise of
 * docs/security.md's "Watching". What the page shows is tested
 * (tests/e2e/watch_page_test.ts); here is only how soon. Needs Debian's chromium.
 *
 * Run: deno run -A --lock=dev/deno.lock bench/watch_latency.ts [lines]
 *
 * @module
 */
import { Portal } from "../dev/portal_client.ts";
import { openBrowser, terminalUntil, watchedPython } from "../tests/helpers/browser.ts";
import { median, ms, row } from "./lib.ts";

const LINES = Number(Deno.args[0] ?? 10);

await using portal = await Portal.start();
await using browser = await openBrowser();
const { id, page } = await watchedPython(portal, browser);
const latencies: number[] = [];
for (let i = 0; i < LINES; i++) {
  await portal.call("process_write", { id, content: `print("line", ${i} * 7)\n` });
  const printed = performance.now();
  await terminalUntil(page, `line ${i * 7}`, (text) => text.includes(`line ${i * 7}\n`));
  latencies.push(performance.now() - printed);
}
const worst = Math.max(...latencies);
row(
  "watch page",
  `a line python3 prints after a step, on a watching page (${LINES} steps): ` +
    "from the step's reply to the page, median and max",
  `${ms(median(latencies))}, max ${ms(worst)}`,
  "max < 1 s",
  worst < 1000,
);
