/**
 * The terminal view (an MCP App) through a host: ext-apps' AppBridge and a
 * host page in headless Chromium (tests/helpers/app_host.ts), connected to
 * Portal by the SDK v2 client. Two figures:
 *
 * - delay: a python program prints a line with its wall-clock time every
 *   300 ms; the view's frame notes (a MutationObserver, Date.now()) when
 *   each line first shows. The median of program → view. Goal ≤ 300 ms.
 * - idle cost: the whole server process's CPU (utime + stime, every thread)
 *   over 20 s while a view polls an idle `cat` (a long poll of at most 1 s),
 *   beside 20 s with no view. Goal < 2% of a core.
 *
 * Run: deno run -A --lock=dev/deno.lock bench/app_view.ts [lines] [seconds]
 *
 * @module
 */
import type { CallToolResult } from "@modelcontextprotocol/client";
import { ModernPortal } from "../dev/modern_client.ts";
import { hostPid } from "../dev/portal_client.ts";
import { delay } from "../src/async.ts";
import { renderView, UI_CAPABILITIES } from "../tests/helpers/app_host.ts";
import { openBrowser, terminalUntil } from "../tests/helpers/browser.ts";
import { median, ms, row } from "./lib.ts";

const LINES = Number(Deno.args[0] ?? 20);
const SECONDS = Number(Deno.args[1] ?? 20);

/** CPU time (ms) of every thread of `pid`, from /proc/<pid>/stat. */
function cpuMs(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

await using portal = await ModernPortal.start({ capabilities: UI_CAPABILITIES, legacy: true });
await using browser = await openBrowser();
const context = await browser.createBrowserContext();
const view = async (id: number) => {
  const result = await portal.client.callTool({ name: "process_watch", arguments: { id } });
  return await renderView(context, portal.client, {
    args: { id },
    result: result as CallToolResult & Record<string, unknown>,
  });
};

// Program → view.
const ticker = "import time\nprint('ready', flush=True)\ninput()\n" +
  `for i in range(${LINES}):\n  time.sleep(0.3)\n` +
  "  print(f'tick {i} {time.time() * 1000:.0f}', flush=True)\ninput()\n";
const { id } = await portal.call("process_start", {
  command: "python3",
  args: ["-c", ticker],
  pty: true,
  wait: "ready",
});
{
  await using host = await view(id);
  await terminalUntil(host.frame, "ready", (text) => text.includes("ready"));
  await host.frame.evaluate(`
    globalThis.seen = new Map();
    const rows = document.querySelector(".xterm-rows");
    new MutationObserver(() => {
      const now = Date.now();
      for (const match of rows.textContent.matchAll(/tick (\\d+) (\\d+)/g)) {
        if (!seen.has(match[1])) seen.set(match[1], now - Number(match[2]));
      }
    }).observe(rows, { childList: true, subtree: true, characterData: true });
  `);
  await portal.call("process_write", { id, content: "\n", wait: "none" });
  await terminalUntil(
    host.frame,
    `tick ${LINES - 1}`,
    (t) => t.includes(`tick ${LINES - 1} `),
    30_000,
  );
  const delays = await host.frame.evaluate("[...seen.values()]") as number[];
  row(
    "app view",
    `a line a program prints, to the terminal view through an AppBridge host (${delays.length} ` +
      "lines, long polls of ≤ 1 s): median and max",
    `${ms(median(delays))}, max ${ms(Math.max(...delays))}`,
    "median ≤ 300 ms",
    median(delays) <= 300,
  );
}

// The server's CPU while a view polls an idle program, beside none.
const pid = hostPid(portal.dir)!;
const idle = await portal.call("process_start", { command: "cat", pty: true, wait: "ready" });
const share = async () => {
  const before = cpuMs(pid);
  const start = performance.now();
  await delay(SECONDS * 1000);
  return (cpuMs(pid) - before) / (performance.now() - start) * 100;
};
const baseline = await share();
{
  await using host = await view(idle.id);
  await terminalUntil(host.frame, "the view's first screen", () => true);
  const polled = await share();
  row(
    "app view",
    `the server's CPU while a terminal view polls an idle program (${SECONDS} s), beside none`,
    `${polled.toFixed(2)}% of a core (none: ${baseline.toFixed(2)}%)`,
    "< 2% of a core",
    polled < 2,
  );
}
await context.close();
