/**
 * Nothing the server started outlives it: leftovers of exited programs can be
 * killed through Portal, and whichever way the server ends (stdin closed,
 * SIGINT, SIGTERM, SIGHUP, SIGKILL) every program, grandchild, background
 * job and sentinel is gone within 2 s, also when the sentinel was SIGKILLed
 * first (a new one takes over at once); a shutdown (anything but SIGKILL)
 * also closes the records database cleanly, with the last output in it. In
 * host mode a door's end, however it comes, ends what its client started
 * (the host lives on and records the goodbyes), and the host's end ends
 * everything.
 *
 * Linux only: the sessions are read from /proc, and macOS's
 * sentinel reaches only the leader's process group (see docs/platforms.md).
 */
import { Portal } from "../../dev/portal_client.ts";
import { waitFor } from "../../dev/wait.ts";
import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { posixTest } from "../helpers/platform.ts";
import { portalTest } from "../helpers/portal.ts";
import { queryRecords } from "../helpers/records_file.ts";
import { alive, descendants, processTable, sessionMembers } from "../helpers/processes.ts";

/**
 * How long to wait for nothing to be left after the server's end: a deadline only a broken teardown
 * misses on a loaded machine. How soon it happens (goal 2 s) is bench/teardown.ts's figure.
 */
const ORPHAN_DEADLINE_MS = 15_000;

/** Starts `sh -c script` and returns its id and the first number it prints on a line. */
async function spawnReporting(portal: Portal, script: string, pty = false) {
  const id = await portal.spawn("sh", ["-c", script], { pty });
  const out = await portal.readUntil(id, (t) => /\d+\n/.test(t));
  return { id, pid: Number(/(\d+)\n/.exec(out)![1]) };
}

portalTest(
  "leftovers: process_kill ends what an exited program left running, on pipes and a PTY",
  async (portal) => {
    const programs = [
      { pty: false, script: "sleep 300 & echo $!" },
      // The job ignores the SIGHUP the kernel sends when the terminal's session leader exits.
      { pty: true, script: "trap '' HUP; sleep 300 & echo $!" },
    ];
    await Promise.all(programs.map(async ({ pty, script }) => {
      const { id, pid: job } = await spawnReporting(portal, script, pty);
      const info = await portal.waitExit(id);
      assertEquals([info.status, info.exit_code], ["exited", 0]);
      assertEquals(alive([job]), [job]);
      // The process keeps its status; what it left behind is gone.
      const killed = await portal.call("process_kill", { id });
      assertEquals([killed.status, killed.exit_code], ["exited", 0]);
      assertEquals(alive([job]), []);
      assertMatch(
        await portal.fail("process_kill", { id }),
        /it has exited \(with code 0\) and nothing it started is still running/,
      );
    }));
  },
  { only: "linux" },
);

portalTest(
  "leftovers: process_cleanup kills them before it forgets the process",
  async (portal) => {
    const { id, pid: job } = await spawnReporting(portal, "sleep 300 & echo $!");
    await portal.waitExit(id);
    assertEquals(alive([job]), [job]);
    assertEquals(await portal.call("process_cleanup", { id }), { id, removed: true });
    assertEquals(alive([job]), []);
  },
  { only: "linux" },
);

/**
 * Starts every kind of program that could outlive the server; returns the
 * pids to watch: each program, the pids they report, every member of their
 * sessions, and every descendant of the server (its session sentinel too).
 */
async function startEverything(portal: Portal): Promise<{ key: number[]; all: number[] }> {
  const reported = await Promise.all([
    // Pipe and PTY programs with a grandchild.
    spawnReporting(portal, "sleep 300 & echo $!; wait"),
    spawnReporting(portal, "sleep 300 & echo $!; wait", true),
    // Programs that ignore SIGHUP and SIGTERM, on a PTY and on pipes.
    spawnReporting(portal, "trap '' HUP TERM; echo $$; sleep 300", true),
    spawnReporting(portal, "trap '' HUP TERM; echo $$; sleep 300"),
    // A pipe program that exited on its own, leaving a job behind.
    spawnReporting(portal, "sleep 300 & echo $!"),
  ]);
  // An interactive bash with background jobs in groups of their own, one ignoring SIGHUP.
  const { id: bash } = await portal.startBash();
  await portal.call("process_write", {
    id: bash,
    content: "sleep 300 & echo JOB:$!; (trap '' HUP; exec sleep 301) & echo JOB:$!\n",
    wait: "none",
  });
  const jobs = [
    ...(await portal.readUntil(bash, (t) => (t.match(/JOB:\d+/g) ?? []).length === 2))
      .matchAll(/JOB:(\d+)/g),
  ].map((m) => Number(m[1]));
  const exited = (await portal.waitExit(reported[4].id)).os_pid;

  const programs = (await portal.call("process_list")).processes
    .map((p: { os_pid: number }) => p.os_pid);
  // The exited one's pid is gone; its session lives on in its job.
  const key = [
    ...new Set([
      ...reported.map((r) => r.pid),
      ...jobs,
      ...programs.filter((pid: number) => pid !== exited),
    ]),
  ];
  const all = new Set([
    ...key,
    ...sessionMembers(programs),
    ...descendants(portal.serverPid).map((row) => row.pid),
  ]);
  return { key, all: [...all] };
}

const ENDINGS = ["stdin closed", "SIGINT", "SIGTERM", "SIGHUP", "SIGKILL"] as const;
type Ending = typeof ENDINGS[number];

/** The server's session sentinel (see session/sentinel.ts), if one runs. */
function sentinelOf(server: number): number | undefined {
  return descendants(server).find((row) => {
    if (row.ppid !== server || row.comm !== "sh") return false;
    try {
      return Deno.readTextFileSync(`/proc/${row.pid}/cmdline`).includes("sids=");
    } catch {
      return false; // gone meanwhile
    }
  })?.pid;
}

/** The server's sentinel, once it runs: it may be between its fork and its exec as a start returns. */
async function runningSentinel(server: number): Promise<number> {
  return (await waitFor("the session sentinel", () => sentinelOf(server), {
    until: (pid) => pid !== undefined,
  }))!;
}

/** How long ago process `pid` started, from /proc (clock ticks of 10 ms since boot). */
function ageMs(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const startTicks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[22 - 3]);
  const uptime = Number(Deno.readTextFileSync("/proc/uptime").split(" ")[0]);
  return uptime * 1000 - startTicks * 10;
}

/** Says goodbye on SIGTERM (how a pipe program is killed), then exits. */
const GOODBYE = "import signal,sys,time\n" +
  "def bye(*_): print('bye', flush=True); sys.exit(0)\n" +
  "signal.signal(signal.SIGTERM, bye)\nprint('ready', flush=True)\nwhile True: time.sleep(1)";

/**
 * Who is ended, and how: the single-process server (`--no-host`), a door
 * (its client's programs die, the host lives on), or the host (everything dies).
 */
type Target = "server" | "door" | "host";

/** Ends `target` of `portal` by `ending`; resolves once the ending has been dealt (not done). */
function end(portal: Portal, target: Target, ending: Ending): Promise<void> {
  if (ending === "stdin closed") return portal.client.close();
  Deno.kill(target === "door" ? portal.transport.pid! : portal.serverPid, ending);
  return Promise.resolve();
}

/** The records of process `id` as text, from the database file (whole, by its integrity check). */
function recorded(path: string, id: number): string {
  const [check] = queryRecords(path, "PRAGMA integrity_check");
  assertEquals({ ...check }, { integrity_check: "ok" });
  const rows = queryRecords<{ content: Uint8Array }>(
    path,
    "SELECT content FROM process_records WHERE process_id = ? ORDER BY seq",
    id,
  );
  return rows.map((row) => new TextDecoder().decode(row.content)).join("");
}

/** One case of the matrix: start everything, end `target` by `ending`, check nothing is left. */
async function noOrphans(target: Target, ending: Ending): Promise<void> {
  await using portal = await Portal.start({ captureStderr: true, noHost: target === "server" });
  const server = portal.serverPid;
  const goodbye = await portal.spawn("python3", ["-c", GOODBYE]);
  await portal.readUntil(goodbye, (t) => t.includes("ready"));
  const { key, all } = await startEverything(portal);
  // What could survive is alive before the end, so the check below means something.
  assertEquals(alive(key).sort(), [...key].sort(), `${target} ${ending}: alive at first`);
  if (ending === "SIGKILL" && target !== "door") {
    // Every program runs: the sentinel dies, and a new one takes over at once, unasked.
    const sentinel = await runningSentinel(server);
    Deno.kill(sentinel, "SIGKILL");
    const next = await waitFor("a new sentinel", () => sentinelOf(server), {
      until: (pid) => pid !== undefined && pid !== sentinel,
    });
    all.push(next!);
    await waitFor("the server to say so", () => portal.stderr, {
      until: (text) => text.includes("the session sentinel died"),
    });
  }
  // A door's end leaves its host (and the host's sentinel) running: they are not watched. (Its
  // programs descend from the host too, so "the host's descendants" would watch none of them.)
  const lives = target === "door" ? [server, sentinelOf(server)] : [];
  const watched = all.filter((pid) => !lives.includes(pid));
  const ended = target === "door" ? portal.transport.pid! : server;
  const closing = end(portal, target, ending);
  await waitFor(`everything to be gone after ${ending} of the ${target}`, () => {
    const left = alive([ended, ...watched]);
    return left.length === 0 ? [] : processTableOf(left);
  }, { until: (left) => left.length === 0, timeoutMs: ORPHAN_DEADLINE_MS, intervalMs: 20 });
  await closing;
  if (target !== "door" && ending === "SIGKILL") return;
  if (target === "door") {
    // The host lives on and killed the programs as a shutdown would: the goodbye is recorded.
    assertEquals(alive([server]), [server], "the host outlives its door");
    await waitFor("the goodbye in the file", () => recorded(portal.dbPath, goodbye), {
      until: (text) => text === "ready\nbye\n",
    });
    return;
  }
  // Shut down, not killed: the database was closed cleanly, with what was written during
  // the shutdown committed in it.
  assertEquals(recorded(portal.dbPath, goodbye), "ready\nbye\n", ending);
}

posixTest(
  "no orphans: however the server ends (--no-host), nothing it started is left",
  async () => {
    await Promise.all(ENDINGS.map((ending) => noOrphans("server", ending)));
  },
  { only: "linux" },
);

posixTest(
  "no orphans: however a door ends, nothing its client started is left; the host lives",
  async () => {
    await Promise.all(ENDINGS.map((ending) => noOrphans("door", ending)));
  },
  { only: "linux" },
);

posixTest(
  "no orphans: however the host ends, nothing any client started is left",
  async () => {
    const endings = ENDINGS.filter((ending) => ending !== "stdin closed");
    await Promise.all(endings.map((ending) => noOrphans("host", ending)));
  },
  { only: "linux" },
);

/** "pid ppid sid stat args" of each of `pids`, for a failure message. */
function processTableOf(pids: number[]): string[] {
  return processTable(pids).map(({ pid, ppid, sid, stat }) => {
    let args = "";
    try {
      args = Deno.readTextFileSync(`/proc/${pid}/cmdline`).replaceAll("\0", " ").trim();
    } catch { /* gone meanwhile */ }
    return `${pid} ${ppid} ${sid} ${stat} ${args}`;
  });
}

posixTest(
  "the sentinel is guarded: killed, it is replaced at once; killed as it starts, after a pause",
  async () => {
    await using portal = await Portal.start({ captureStderr: true });
    const server = portal.serverPid;
    await portal.spawn("sleep", ["300"]);
    const first = await runningSentinel(server);
    // A sentinel that dies in its first second makes the next one wait: this one lived longer.
    await waitFor("the sentinel to be a second old", () => ageMs(first), {
      until: (ms) => ms > 1100,
      timeoutMs: 5000,
    });
    Deno.kill(first, "SIGKILL");
    const second = await waitFor("a new sentinel", () => sentinelOf(server), {
      until: (pid) => pid !== undefined && pid !== first,
    });
    // Dead within a second of its start: the next one waits 0.1 s (a crash loop costs little).
    Deno.kill(second!, "SIGKILL");
    await waitFor("another sentinel", () => sentinelOf(server), {
      until: (pid) => pid !== undefined && pid !== second,
    });
    await waitFor("the server to say both", () => portal.stderr, {
      until: (text) =>
        text.includes("the session sentinel died; started another") &&
        text.includes("died as it started (1 in a row); the next starts in 0.1 s"),
    });
  },
  { only: "linux" },
);
