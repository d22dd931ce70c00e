/**
 * How long after the server ends nothing it started is left (goal: 2 s), for
 * a SIGKILLed server (the session sentinel's work) and for a client closing
 * stdin (the server's own shutdown). Each round starts a server with 8 pipe
 * and 8 PTY programs with a grandchild each, an interactive bash with a
 * background job that ignores SIGHUP, and a pipe program that exited leaving
 * a job behind; it then ends the server and polls /proc every 2 ms.
 *
 * Then how soon a new session sentinel runs after the server's is SIGKILLed
 * (it takes over every session; the server's children polled every 1 ms).
 *
 * Linux only (/proc). Run: deno run -A bench/teardown.ts [rounds]
 */
import { Portal } from "../dev/portal_client.ts";
import { childrenOf, pidAlive, processTable } from "../dev/process_table.ts";
import { median, row } from "./lib.ts";

const rounds = Number(Deno.args[0] ?? 3);
try {
  Deno.statSync("/proc/self/stat");
} catch {
  console.log("teardown: needs /proc (Linux); skipped");
  Deno.exit(0);
}
const GOAL_MS = 2000;

/** The server, its descendants and every member of the sessions `sids`. */
function everything(server: number, sids: number[]): number[] {
  const table = processTable().filter((row) => !row.stat.startsWith("Z"));
  const watched = new Set([server]);
  for (let grew = true; grew;) {
    grew = false;
    for (const { pid, ppid, sid } of table) {
      if (!watched.has(pid) && (watched.has(ppid) || sids.includes(sid))) {
        watched.add(pid);
        grew = true;
      }
    }
  }
  return [...watched];
}

async function round(ending: "SIGKILL" | "stdin closed"): Promise<{ ms: number; count: number }> {
  // The single-process server: a host's end is measured the same way (tests/e2e/orphans_test.ts).
  const portal = await Portal.start({ noHost: true });
  const script = "sleep 300 & echo $!; wait";
  const ids = await Promise.all([
    ...Array.from(
      { length: 16 },
      (_, i) => portal.spawn("sh", ["-c", script], { pty: i % 2 === 1 }),
    ),
    portal.spawn("sh", ["-c", "sleep 300 & echo $!"]),
    portal.startBash().then((started) => started.id as number),
  ]);
  const bash = ids.at(-1)!;
  // wait "none": the job's "[1] PID" stays unread, for the read below.
  await portal.call("process_write", {
    id: bash,
    content: "(trap '' HUP; exec sleep 300) &\n",
    wait: "none",
  });
  for (const id of ids.slice(0, -1)) await portal.readUntil(id, (t) => t.endsWith("\n"));
  await portal.readUntil(bash, (t) => /\[1\] \d+/.test(t));
  const sids = (await portal.call("process_list")).processes.map((p: { os_pid: number }) =>
    p.os_pid
  );
  const server = portal.serverPid;
  const watched = everything(server, sids);
  const start = performance.now();
  const closing = ending === "SIGKILL" ? Deno.kill(server, "SIGKILL") : portal.client.close();
  while (watched.some(pidAlive)) {
    if (performance.now() - start > 10_000) throw new Error(`${ending}: survivors after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const ms = performance.now() - start;
  await closing;
  await portal.close();
  return { ms, count: watched.length };
}

for (const ending of ["SIGKILL", "stdin closed"] as const) {
  const runs: number[] = [];
  let count = 0;
  for (let i = 0; i < rounds; i++) {
    const result = await round(ending);
    runs.push(result.ms);
    count = result.count;
  }
  row(
    "9 teardown",
    `server ${ending} → none of its ${count} processes left, ${rounds} rounds`,
    `median ${median(runs).toFixed(0)} ms, max ${Math.max(...runs).toFixed(0)} ms`,
    `≤ ${GOAL_MS} ms`,
    Math.max(...runs) <= GOAL_MS,
  );
}

/** The server's children that run the sentinel's script (its main thread's children). */
function sentinels(server: number): number[] {
  return childrenOf(server).filter((pid) => {
    try {
      return Deno.readTextFileSync(`/proc/${pid}/cmdline`).includes("sids=");
    } catch {
      return false;
    }
  });
}

{
  await using portal = await Portal.start();
  const server = portal.serverPid;
  await portal.spawn("sleep", ["300"]);
  const takeovers: number[] = [];
  for (let i = 0; i < rounds; i++) {
    // A sentinel dead in its first second makes the next wait: each lives longer than that.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const [old] = sentinels(server);
    const start = performance.now();
    Deno.kill(old, "SIGKILL");
    while (!sentinels(server).some((pid) => pid !== old)) {
      if (performance.now() - start > 5000) throw new Error("no new sentinel after 5 s");
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    takeovers.push(performance.now() - start);
  }
  row(
    "9 teardown",
    `sentinel SIGKILLed → a new one running, told every session, ${rounds} rounds`,
    `median ${median(takeovers).toFixed(1)} ms, max ${Math.max(...takeovers).toFixed(1)} ms`,
    "≤ 50 ms",
    Math.max(...takeovers) <= 50,
  );
}
