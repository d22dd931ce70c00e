/**
 * Readers that stop reading, and what they cost the host and its other
 * clients (issue 28, item 3), side by side in one run:
 *
 * - a `portal attach` terminal that stops reading (a raw attach connection
 *   that reads nothing) while its program floods (`base64 /dev/urandom` on a
 *   PTY) for 15 s, beside the same flood with no terminal attached: the
 *   host's RSS growth (peak over the flood minus before), and the p99 of
 *   another client's steps meanwhile (process_write to its own PTY `cat`,
 *   every 20 ms); then how long the terminal, reading again, waits for the
 *   screen. Goals: < 100 MB more than before, p99 < 50 ms.
 * - a client that sends 200 requests whose replies are 1 MB each and reads
 *   none: the host's RSS growth until it has stopped taking them (or 30 s),
 *   and the other client's p99 meanwhile. Same goals.
 * - an attach frame whose header claims 60 MiB, its payload streamed in:
 *   the other client's slowest step meanwhile.
 *
 * Run: deno run -A bench/stalled_readers.ts [flood seconds]
 *
 * @module
 */
import { delay } from "../src/async.ts";
import { bigReply } from "../dev/big_reply.ts";
import { hostLogs, Portal } from "../dev/portal_client.ts";
import { childrenOf } from "../dev/process_table.ts";
import { RawAttach } from "../dev/raw_attach.ts";
import { handshake, jsonLine, spawnServer } from "../dev/raw_lines.ts";
import { tempDir } from "../dev/temp_dir.ts";
import { endHost } from "../dev/portal_client.ts";
import { mb, ms, percentile, procIo, procStatus, row } from "./lib.ts";

const FLOOD_S = Number(Deno.args[0] ?? 15);
const PAUSED = "bytes of replies unread: what it sends is taken again";

/** Another client's steps (a line to its own `cat`, every 20 ms) until `stop` resolves. */
async function steps(other: Portal, stop: Promise<unknown>): Promise<number[]> {
  const cat = await other.spawn("cat", [], { pty: true });
  let stopped = false;
  stop.finally(() => stopped = true);
  const took: number[] = [];
  for (let i = 0; !stopped; i++) {
    const started = performance.now();
    const { output } = await other.call("process_write", { id: cat, content: `k${i}\n` });
    took.push(performance.now() - started);
    if (!output.includes(`k${i}\n`)) throw new Error(`step ${i}: no line in ${output}`);
    await delay(20 - (performance.now() - started));
  }
  await other.call("process_kill", { id: cat });
  return took;
}

/** Samples `pid`'s RSS every 100 ms until `stop` resolves; returns the largest sample. */
async function peakRss(pid: number, stop: Promise<unknown>): Promise<number> {
  let stopped = false;
  stop.finally(() => stopped = true);
  let peak = procStatus(pid, "VmRSS");
  while (!stopped) {
    peak = Math.max(peak, procStatus(pid, "VmRSS"));
    await delay(100);
  }
  return peak;
}

/** Runs `during` beside another client's steps and RSS samples; what it found. */
async function beside(
  dir: string,
  during: (host: number) => Promise<void>,
): Promise<{ growth: number; took: number[] }> {
  await using other = await Portal.start({ dir });
  const host = other.serverPid;
  const before = procStatus(host, "VmRSS");
  const done = during(host);
  const [peak, took] = await Promise.all([peakRss(host, done), steps(other, done), done]);
  return { growth: peak - before, took };
}

function report(what: string, { growth, took }: { growth: number; took: number[] }): void {
  const p99 = percentile(took, 0.99);
  row(
    "28 stalled readers",
    `${what}: host RSS growth; another client's step p99 (${took.length} steps)`,
    `+${mb(growth)}; ${ms(p99)} (median ${ms(percentile(took, 0.5))})`,
    "< 100 MB; < 50 ms",
    growth < 100e6 && p99 < 50,
  );
}

/** A PTY flood for FLOOD_S seconds, with a stalled terminal attached or none. */
async function flood(stalled: boolean): Promise<void> {
  await using dir = await tempDir("portal-bench-stalled-");
  try {
    await using agent = await Portal.start({ dir: dir.path });
    const { id, os_pid } = await agent.call("process_start", {
      command: "sh",
      args: ["-c", "read go; base64 /dev/urandom; echo FLOOD-OVER; exec cat"],
      pty: true,
      name: "flood",
      wait: "ready",
    });
    using attached = stalled ? await RawAttach.open(dir.path, "flood") : undefined;
    let wrote = 0;
    const found = await beside(dir.path, async () => {
      await agent.call("process_write", { id, content: "go\n", wait: "none" });
      await delay(FLOOD_S * 1000);
      const [base64] = childrenOf(os_pid);
      wrote = procIo(base64, "wchar");
      Deno.kill(base64, "SIGKILL");
    });
    report(
      `${FLOOD_S} s of base64 /dev/urandom on a PTY (${mb(wrote)}), ` +
        (stalled ? "a terminal attached that reads nothing" : "no terminal attached"),
      found,
    );
    if (!attached) return;
    const started = performance.now();
    let received = 0;
    for await (const frame of attached.frames(60_000)) {
      received += frame.payload.length;
      const text = new TextDecoder().decode(frame.payload);
      if (frame.type === "screen" && text.includes("FLOOD-OVER")) break;
    }
    const waited = performance.now() - started;
    row(
      "28 stalled readers",
      "the stalled terminal reads again: until the screen as it stands has come",
      `${ms(waited)} (${mb(received)} received)`,
      "(report)",
      true,
    );
    await agent.call("process_kill_all");
  } finally {
    await endHost(dir.path);
  }
}

/** A client that asks for 200 replies of 1 MB each and reads none. */
async function deafClient(): Promise<void> {
  await using dir = await tempDir("portal-bench-stalled-");
  try {
    await using agent = await Portal.start({ dir: dir.path });
    const { read, size } = await bigReply(agent);
    const child = await spawnServer(dir.path);
    const stdin = child.stdin.getWriter();
    await handshake(stdin, child.stdout, "deaf");
    const found = await beside(dir.path, async () => {
      for (let i = 0; i < 200; i++) {
        const params = { name: "process_read", arguments: read };
        await stdin.write(jsonLine({ jsonrpc: "2.0", id: 10 + i, method: "tools/call", params }));
      }
      const until = performance.now() + 30_000;
      while (!hostLogs(dir.path).includes(PAUSED) && performance.now() < until) await delay(100);
      await delay(2000);
    });
    report(`200 unread replies of ${mb(size)} each`, found);
    child.kill("SIGKILL");
    await child.status;
    await child.stdout.cancel();
  } finally {
    await endHost(dir.path);
  }
}

/** A frame header claiming 60 MiB, and that much payload sent after it. */
async function oversized(): Promise<void> {
  await using dir = await tempDir("portal-bench-stalled-");
  try {
    await using agent = await Portal.start({ dir: dir.path });
    await agent.spawn("cat", [], { pty: true, name: "target" });
    using attached = await RawAttach.open(dir.path, "target");
    const found = await beside(dir.path, async () => {
      const header = new Uint8Array(5);
      header[0] = 0x49;
      new DataView(header.buffer).setUint32(1, 60 << 20);
      const chunk = new Uint8Array(1 << 20);
      try {
        await attached.conn.write(header);
        for (let i = 0; i < 60; i++) await attached.conn.write(chunk);
      } catch { /* the host hung up */ }
      await delay(1000);
    });
    row(
      "28 stalled readers",
      "an attach frame claiming 60 MiB: another client's slowest step meanwhile",
      `${ms(Math.max(...found.took))} (p99 ${ms(percentile(found.took, 0.99))})`,
      "< 50 ms",
      Math.max(...found.took) < 50,
    );
  } finally {
    await endHost(dir.path);
  }
}

await flood(false);
await flood(true);
await deafClient();
await oversized();
