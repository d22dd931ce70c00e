/**
 * The pipe backend's drain after the program exited: a pipe a leftover job
 * holds open ends the drain after its grace, judged on the server's own read
 * ends only while their streams have them. Linux: our fds are read from
 * /proc.
 */
import { waitFor } from "../../dev/wait.ts";
import { posixTest } from "../helpers/platform.ts";
import { assertEquals } from "../helpers/assert.ts";
import { spawnOnPipes } from "../../src/terminal/pipe.ts";
import { posixPipes } from "../../src/terminal/posix/pipe_child.ts";
import type { ExitInfo } from "../../src/terminal/terminal.ts";
import { fcntl, libc } from "../../ffi/libc.ts";
import { C } from "../../ffi/os_constants.ts";
import { openFds } from "../../dev/process_table.ts";

/** Our fd that is the same pipe as `link` (a `pipe:[inode]` name), if it is open. */
function ownEndOf(link: string): number | undefined {
  return openFds(Deno.pid).find((open) => open.link === link)?.fd;
}

posixTest(
  "pipes: a stream's closed fd, taken by another pipe with bytes in it, holds back no exit",
  async () => {
    const text: string[] = [];
    let exit: ExitInfo | null = null;
    // stderr ends after our first line; the exit waits for a second; the job keeps stdout open.
    const term = spawnOnPipes(posixPipes, {
      command: "sh",
      args: ["-c", "read x; exec 2>&-; read x; sleep 300 & echo $!"],
      cwd: "/tmp",
      env: {},
      cols: 80,
      rows: 24,
    }, {
      onData: (_source, chunk) => text.push(new TextDecoder().decode(chunk)),
      onExit: (info) => exit = info,
    });
    // Our read end of its stderr: the fd naming the same pipe as its fd 2 (other test files
    // in this process open pipes too, so no guess by number).
    const stderrLink = Deno.readLinkSync(`/proc/${term.pid}/fd/2`);
    const stderrFd = ownEndOf(stderrLink)!;
    assertEquals(typeof stderrFd, "number");
    term.write(new TextEncoder().encode("\n"));
    const opened: number[] = [];
    try {
      await waitFor("the stderr stream to close its fd", () => ownEndOf(stderrLink), {
        until: (fd) => fd === undefined,
        intervalMs: 1,
      });
      // Its number now names a pipe holding a byte, as when a later spawn or socket takes it.
      const pipe = new Int32Array(2);
      assertEquals(libc().pipe(new Uint8Array(pipe.buffer)), 0);
      opened.push(...pipe);
      libc().write(pipe[1], new Uint8Array([1]), 1n);
      // Only onto a free number: other test files run in this process, and one may have taken it
      // meanwhile (the runtime's own epoll fd, once); dup2 over theirs would close it under them.
      // Taken, the number names someone else's file, which is the case this test makes anyway.
      if (fcntl(stderrFd, C.F_GETFD) === -1) {
        assertEquals(libc().dup2(pipe[0], stderrFd), stderrFd);
        opened.push(stderrFd);
      }
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
