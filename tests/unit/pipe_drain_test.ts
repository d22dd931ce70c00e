/**
 * The pipe backend's drain after the program exited: a pipe a leftover job
 * holds open ends the drain after its grace, judged on the server's own read
 * ends only while their streams have them. Linux: our fds are read from
 * /proc/self/fd.
 */
import { waitFor } from "../../dev/wait.ts";
import { posixTest } from "../helpers/platform.ts";
import { assertEquals } from "../helpers/assert.ts";
import { spawnOnPipes } from "../../src/terminal/pipe.ts";
import { posixPipes } from "../../src/terminal/posix/pipe_platform.ts";
import type { ExitInfo } from "../../src/terminal/terminal.ts";
import { libc } from "../../ffi/libc.ts";

/** This process's fds that are pipe ends. */
function ownPipes(): Set<number> {
  const fds = new Set<number>();
  for (const { name } of Deno.readDirSync("/proc/self/fd")) {
    try {
      if (Deno.readLinkSync(`/proc/self/fd/${name}`).startsWith("pipe:")) fds.add(Number(name));
    } catch {
      // Closed meanwhile (the listing's own fd among them).
    }
  }
  return fds;
}

posixTest(
  "pipes: a stream's closed fd, taken by another pipe with bytes in it, holds back no exit",
  async () => {
    let stderrFd = -1;
    const platform = {
      ...posixPipes,
      spawn: (...args: Parameters<typeof posixPipes.spawn>) => {
        const before = ownPipes();
        const child = posixPipes.spawn(...args);
        // Three pipes were made, stdin's, stdout's, stderr's, each at the lowest free numbers:
        // our read end of stderr's is the highest of the ends we kept.
        stderrFd = Math.max(...[...ownPipes()].filter((fd) => !before.has(fd)));
        return child;
      },
    };
    const text: string[] = [];
    let exit: ExitInfo | null = null;
    // stderr ends at once; the exit waits for our line; the job keeps stdout open.
    const term = spawnOnPipes(platform, {
      command: "sh",
      args: ["-c", "exec 2>&-; read x; sleep 300 & echo $!"],
      cwd: "/tmp",
      env: {},
      cols: 80,
      rows: 24,
    }, {
      onData: (_source, chunk) => text.push(new TextDecoder().decode(chunk)),
      onExit: (info) => exit = info,
    });
    const opened: number[] = [];
    try {
      await waitFor("the stderr stream to close its fd", () => ownPipes().has(stderrFd), {
        until: (open) => !open,
      });
      // Its number now names a pipe holding a byte, as when a later spawn or socket takes it.
      const pipe = new Int32Array(2);
      assertEquals(libc().pipe(new Uint8Array(pipe.buffer)), 0);
      opened.push(...pipe);
      libc().write(pipe[1], new Uint8Array([1]), 1n);
      assertEquals(libc().dup2(pipe[0], stderrFd), stderrFd);
      opened.push(stderrFd);
      term.write(new TextEncoder().encode("\n"));
      const seen = await waitFor("the exit", () => exit, { until: (info) => info !== null });
      assertEquals(seen, { code: 0, signal: null });
      assertEquals(/^\d+\n$/.test(text.join("")), true);
    } finally {
      // The job, then the pipe (and its copy) that stood in.
      await term.kill();
      for (const fd of opened) libc().close(fd);
    }
  },
  { only: "linux" },
);
