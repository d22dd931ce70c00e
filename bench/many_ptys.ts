/**
 * Is the server still responsive with 100 live terminals? Times tool calls
 * (process_list, and a write → echo round trip on one more terminal) with no
 * terminals, then with 100 terminals of which 10 print a line every 10 ms.
 *
 * Run: deno run -A bench/many_ptys.ts
 */
import { Portal } from "../dev/portal_client.ts";

const portal = await Portal.start();
const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

async function measure(label: string): Promise<void> {
  const list: number[] = [];
  for (let i = 0; i < 50; i++) {
    const start = performance.now();
    await portal.call("process_list");
    list.push(performance.now() - start);
  }
  const echo = await portal.spawn("cat", [], { pty: true });
  const roundTrips: number[] = [];
  for (let i = 0; i < 30; i++) {
    const start = performance.now();
    await portal.call("process_write", { id: echo, content: `k${i}\n`, wait: "none" });
    await portal.readUntil(echo, (t) => t.includes(`k${i}\n`), { timeoutMs: 10_000 });
    roundTrips.push(performance.now() - start);
  }
  await portal.call("process_kill", { id: echo });
  await portal.call("process_cleanup", { id: echo });
  const f = (x: number) => x.toFixed(1);
  console.log(
    `${label}: process_list median ${f(percentile(list, 0.5))} ms, p95 ${
      f(percentile(list, 0.95))
    } ms; ` +
      `write→echo via read_new median ${f(percentile(roundTrips, 0.5))} ms, p95 ${
        f(percentile(roundTrips, 0.95))
      } ms`,
  );
}

try {
  await measure("  0 terminals");
  for (let i = 0; i < 100; i++) {
    const chatty = i < 10;
    await portal.spawn("sh", [
      "-c",
      chatty ? "while :; do echo tick; sleep 0.01; done" : "exec cat",
    ], {
      pty: true,
    });
  }
  await measure("100 terminals (10 printing every 10 ms)");
  const started = performance.now();
  await portal.call("process_kill_all");
  console.log(`process_kill_all of 100 terminals: ${(performance.now() - started).toFixed(0)} ms`);
} finally {
  await portal.close();
}
