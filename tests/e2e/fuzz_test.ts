/**
 * 10,000 seeded random calls, valid and invalid interleaved, over several
 * processes (dev/fuzz.ts); then the server still answers, process_list and
 * process_inspect agree, and once everything is killed and cleaned up, no
 * process and no file descriptor of the server is left over. `dev/soak.ts
 * fuzz` runs as many calls as asked.
 */
import { Portal } from "../../dev/portal_client.ts";
import { fuzz } from "../../dev/fuzz.ts";
import { waitFor } from "../../dev/wait.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { descendants } from "../helpers/processes.ts";
import { openFds, procStatus } from "../../dev/process_table.ts";
import { posixTest } from "../helpers/platform.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const CALLS = 10_000;
const SEED = 20_260_011;

/** The server's open file descriptors, by what they lead to (Linux /proc). */
function openFiles(pid: number): string[] {
  return openFds(pid).map(({ link }) => link.replace(/\d+/g, "N")).sort();
}

/** How many of `files` are `file`. */
function count(files: string[], file: string): number {
  return files.filter((each) => each === file).length;
}

/** The server's resident memory, in MiB. */
const rssMiB = (pid: number) => Math.round(procStatus(pid, "VmRSS") / 2 ** 20);

/** Kills and cleans up every process; returns how many there were. */
async function endAll(portal: Portal): Promise<number> {
  await portal.call("process_kill_all");
  const { processes } = await portal.call("process_list");
  for (const { id } of processes) await portal.call("process_cleanup", { id });
  assertEquals((await portal.call("process_list")).processes, []);
  return processes.length;
}

posixTest(
  `fuzz: ${CALLS} seeded random calls, valid and invalid, over several processes: the server answers on, list and inspect agree, nothing leaks`,
  async () => {
    await using portal = await Portal.start();
    const server = portal.serverPid;
    // Warm up what is made once (the sentinel with the first program, the readiness loop, the
    // emulator Worker), twice: the runtime keeps an eventfd and an epoll of its own from the
    // first time a Worker ends.
    for (let round = 0; round < 2; round++) {
      for (const pty of [false, true]) {
        const id = await portal.spawn("cat", [], { pty });
        await portal.call("process_write", { id, content: "warm\n" });
        await portal.call("process_screen", { id }).catch(() => {});
      }
      await endAll(portal);
    }
    const sentinel = descendants(server).map((row) => row.pid);
    const files = openFiles(server);
    const rss = rssMiB(server);

    const report = await fuzz(portal, { calls: CALLS, seed: SEED });
    console.log(
      `fuzz: ${report.calls} calls (${report.refused} refused) in ${report.ms} ms, ` +
        `${report.started} programs started; server RSS ${rss} → ${rssMiB(server)} MiB, ` +
        `${files.length} open files before`,
    );
    assertEquals(report.failures, []);
    assertEquals(report.calls, CALLS);
    assert(report.started > 50 && report.refused > CALLS / 4, JSON.stringify(report));

    // list and inspect agree on every process.
    const { processes } = await portal.call("process_list");
    for (const listed of processes) {
      const inspected = await portal.call("process_inspect", { id: listed.id });
      for (const key of ["id", "command", "os_pid", "pty", "timeout_ms"]) {
        assertEquals(inspected[key], listed[key], `${key} of ${listed.id}`);
      }
      if (listed.status !== "running") assertEquals(inspected.status, listed.status);
    }
    // Everything ended and removed: nothing it started lives on, no descriptor is left open.
    await endAll(portal);
    await waitFor("only the sentinel to be left", () => descendants(server).map((r) => r.pid), {
      until: (pids: number[]) => pids.join() === sentinel.join(),
    });
    // None more of any kind than before: under load the first look can still see a warm-up
    // program's pipe or socket on its way to being closed, which is no leak of the fuzz.
    await waitFor("the open files to be no more than those before", () => openFiles(server), {
      until: (now: string[]) => now.every((file) => count(now, file) <= count(files, file)),
    });
    // And it still works.
    const id = await portal.spawn("echo", ["after the fuzz"]);
    await portal.readUntil(id, (t: string) => t.includes("after the fuzz"));
    const info: Json = await portal.waitExit(id);
    assertEquals(info.exit_code, 0);
  },
  { only: "linux" },
);
