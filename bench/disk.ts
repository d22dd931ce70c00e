/**
 * Bounded disk: one server with 1 and one with 10 PTYs printing "tick" every
 * 10 ms, side by side, for 60 s; the server's /proc/<pid>/io write_bytes
 * beside the bytes of output it stored. Goal: at most 4× the output plus a
 * small fixed rate (4 KiB/s, a page a second).
 *
 * Run: deno run -A bench/disk.ts [seconds]
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { delay } from "../src/async.ts";
import { Portal } from "../dev/portal_client.ts";
import { procIo, row } from "./lib.ts";

const SECONDS = Number(Deno.args[0] ?? 60);
const FIXED = 4096;

async function chatty(count: number) {
  const portal = await Portal.start();
  const pid = portal.serverPid;
  for (let i = 0; i < count; i++) {
    await portal.spawn("sh", ["-c", "while :; do echo tick; sleep 0.01; done"], { pty: true });
  }
  return { portal, pid, count, before: procIo(pid, "write_bytes") };
}

const servers = [await chatty(1), await chatty(10)];
const started = performance.now();
await delay(SECONDS * 1000);
for (const { portal, pid, count, before } of servers) {
  const seconds = (performance.now() - started) / 1000;
  const written = procIo(pid, "write_bytes") - before;
  await portal.call("process_kill_all");
  const db = new DatabaseSync(portal.dbPath, { readOnly: true });
  const { output } = db.prepare("SELECT sum(length(content)) AS output FROM records").get() as {
    output: number;
  };
  db.close();
  await portal.close();
  const rate = (bytes: number) => `${(bytes / seconds / 1000).toFixed(1)} KB/s`;
  const budget = 4 * output + FIXED * seconds;
  row(
    "4 disk",
    `write_bytes over ${seconds.toFixed(0)} s, ${count} PTY${
      count > 1 ? "s" : ""
    } printing tick every 10 ms`,
    `${rate(written)} for ${rate(output)} of output = ${(written / output).toFixed(1)}×`,
    "≤ 4× output + 4 KiB/s",
    written <= budget,
  );
}
