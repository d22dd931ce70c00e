/**
 * Nice values (ffi/bulk_thread.ts): once a PTY's screen has been drawn, the
 * emulator Worker runs 10 nicer than the server; every other thread of the
 * server keeps the server's nice value, and the programs it starts, on a PTY
 * and on pipes, this test runner's (nothing of the server's reaches them).
 * Read from the nice value in /proc/<pid>/stat.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { linuxTest } from "../helpers/portal.ts";

/** The nice value of the task at `path` (/proc/<pid> or /proc/<pid>/task/<tid>). */
function niceOf(path: string): number {
  const stat = Deno.readTextFileSync(`${path}/stat`);
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}

linuxTest(
  "nice values: the emulator Worker 10 nicer; the server's other threads and its programs not",
  async (portal) => {
    const pty = await portal.call("process_start", { command: "cat", pty: true });
    const pipes = await portal.call("process_start", { command: "sleep", args: ["100"] });
    await portal.call("process_write", { id: pty.id, content: "x\n" });
    await portal.call("process_screen", { id: pty.id });
    const runner = niceOf("/proc/self");
    assertEquals([niceOf(`/proc/${pty.os_pid}`), niceOf(`/proc/${pipes.os_pid}`)], [
      runner,
      runner,
    ]);
    const server = portal.serverPid;
    const own = niceOf(`/proc/${server}/task/${server}`);
    assertEquals(own, runner);
    const threads = [...Deno.readDirSync(`/proc/${server}/task`)].map(({ name }) => ({
      name: Deno.readTextFileSync(`/proc/${server}/task/${name}/comm`).trim(),
      nice: niceOf(`/proc/${server}/task/${name}`),
    }));
    // One Worker (the emulator's) and the threads it started (its blocking pool) are nicer.
    const nicer = threads.filter((t) => t.nice !== own);
    assert(nicer.every((t) => t.nice === own + 10), JSON.stringify(threads));
    assertEquals(
      nicer.filter((t) => t.name.startsWith("worker-")).length,
      1,
      JSON.stringify(threads),
    );
  },
);
