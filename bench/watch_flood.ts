/**
 * A flood watched by two pages: `seq` floods a PTY for a few seconds (10 by
 * default) while a write-and-wait step runs on another PTY (`cat`) every 20
 * ms, first with no page open, then with two watch pages (each its own
 * browser window in a real headless Chromium) following the flood. Goal: the
 * step's p99 stays under 20 ms with the pages, and the pages stay live (what
 * they show keeps changing during the flood, and after it they show the
 * program's last screen). Needs Debian's chromium.
 *
 * Run: deno run -A bench/watch_flood.ts [seconds]
 *
 * @module
 */
import { delay } from "../src/async.ts";
import { Portal } from "../dev/portal_client.ts";
import { openBrowser, terminalText } from "../tests/helpers/browser.ts";
import { ms, percentile, row } from "./lib.ts";
import type { Page } from "puppeteer-core";

const SECONDS = Number(Deno.args[0] ?? 10);

async function measure(pages: number): Promise<void> {
  await using portal = await Portal.start();
  await using browser = await openBrowser();
  const echo = await portal.spawn("cat", [], { pty: true });
  // Numbers that count up: what a page shows of it changes as long as it follows the flood.
  const flood = await portal.spawn("seq", ["1", "2000000000"], { pty: true });
  const { url } = await portal.call("process_watch", { id: flood });
  const watching: Page[] = [];
  for (let i = 0; i < pages; i++) {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await page.setViewport({ width: 1280, height: 720 });
    await page.goto(url);
    await page.waitForSelector(".xterm-rows");
    watching.push(page);
  }
  // Each page counts the distinct screens it draws itself: polling it from here would cost the
  // browser a CDP round trip and a serialisation each time, CPU the server's steps then wait for.
  await Promise.all(watching.map((page) => page.evaluate(COUNT_SCREENS)));
  const steps: number[] = [];
  const until = performance.now() + SECONDS * 1000;
  for (let i = 0; performance.now() < until; i++) {
    const sent = performance.now();
    const { output } = await portal.call("process_write", { id: echo, content: `k${i}\n` });
    steps.push(performance.now() - sent);
    if (!output.includes(`k${i}\n`)) throw new Error(`step ${i}: no echo in ${output}`);
    await delay(20 - (performance.now() - sent));
  }
  const seen = await Promise.all(
    watching.map((page) =>
      page.evaluate(() => (globalThis as { screens?: Set<string> }).screens!.size)
    ),
  );
  await portal.call("process_kill", { id: flood });
  const { io_count } = await portal.call("process_inspect", { id: flood });
  const last = (await portal.call("process_screen", { id: flood })).lines.join("\n");
  // After the flood, each page shows the program's last screen.
  const settled = await Promise.all(watching.map(async (page) => {
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      if ((await terminalText(page)).trimEnd() === last.trimEnd()) return true;
      await delay(50);
    }
    return false;
  }));
  const p99 = percentile(steps, 0.99);
  const watched = pages === 0 ? "no page open" : `${pages} pages watching it`;
  row(
    "19 watch",
    `write → echo step p99 during a PTY flood, ${watched} (${steps.length} samples, ${io_count} flood records)`,
    `${ms(p99)} (median ${ms(percentile(steps, 0.5))})`,
    pages === 0 ? "(context)" : "< 20 ms",
    p99 < 20,
  );
  if (pages === 0) return;
  const changes = seen.map((n) => (n / SECONDS).toFixed(1)).join(", ");
  row(
    "19 watch",
    `the ${pages} pages during the flood: distinct screens drawn per second; the last screen after it`,
    `${changes} per s; last screen shown: ${settled.every(Boolean) ? "yes" : "no"}`,
    "live, and exact after",
    seen.every((n) => n >= SECONDS) && settled.every(Boolean),
  );
}

/**
 * In the page (the bench's type check has no DOM): keeps every distinct text its terminal shows,
 * in `globalThis.screens`.
 */
const COUNT_SCREENS = `{
  const rows = document.querySelector(".xterm-rows");
  const screens = new Set();
  const text = () => [...rows.children].map((row) => row.textContent).join("\\n");
  new MutationObserver(() => screens.add(text()))
    .observe(rows, { childList: true, subtree: true, characterData: true });
  globalThis.screens = screens;
}`;

for (const pages of [0, 2]) await measure(pages);
