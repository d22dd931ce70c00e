/**
 * The pipe backend on Linux and macOS ({@link posixPipes}): three pipes, then
 * {@link spawnSession}, the program leading a session of its own and reaped
 * as in PTY mode; a program's tree is its process group, and signals go
 * through libc's `kill`, so every signal number reaches the group
 * (`Deno.kill` knows no real-time signals).
 *
 * Not `Deno.Command`: Deno waits for its children itself (tokio reaps each
 * as it exits) and names the signal that ended one from a fixed table, so a
 * program killed by a real-time signal made `ChildProcess.status` reject with
 * "Invalid signal: 37" and the status was lost; nor does it tell a core dump.
 * Reaping a `Deno.Command` child ourselves would race tokio for the status
 * (whoever loses gets ECHILD), and a late `waitpid(pid)` could even reap a
 * stranger that reused the pid. A child Deno never saw is reaped by
 * {@link childReaper} alone, with its full wait status.
 *
 * @module
 */
import { errno, libc, strerror } from "../../../ffi/libc.ts";
import { C } from "../../../ffi/os_constants.ts";
import { unreadBytes } from "../../../ffi/terminal_calls.ts";
import type { Launch } from "../launch.ts";
import type { PipeChild, PipePlatform } from "../pipe.ts";
import type { ExitInfo } from "../terminal.ts";
import { confine } from "./bubblewrap.ts";
import { childReaper } from "./child_reaper.ts";
import { resolveExecutable } from "./executable.ts";
import { readableFd, writableFd } from "./fd_streams.ts";
import { InputProbe } from "./input_state.ts";
import { fdTarget } from "./proc_tasks.ts";
import { PosixSession } from "./session/session.ts";
import { openPipe, spawnSession } from "./spawn.ts";

/** See the module doc. */
export const posixPipes: PipePlatform = {
  findExecutable: resolveExecutable,
  confine,
  spawn: (launch, opts) => spawnPipeChild(launch, opts.command),
  breakSignal: "SIGQUIT",
};

/**
 * Starts `launch` on three new pipes, with its `files` open for reading at
 * fds 3, 4, …; `command` is the name the agent gave. Throws `PortalError`.
 */
function spawnPipeChild(launch: Launch, command: string): PipeChild {
  const { path, argv, env, cwd, files = [] } = launch;
  const pipes: { read: number; write: number }[] = [];
  let pid: number;
  try {
    // One at a time, so a failure closes what was opened before it.
    for (const ours of ["write", "read", "read"] as const) pipes.push(openPipe(ours));
    const [stdin, stdout, stderr] = pipes;
    const stdio = [
      { fd: 0, dup: stdin.read },
      { fd: 1, dup: stdout.write },
      { fd: 2, dup: stderr.write },
      ...files.map((open, i) => ({ fd: 3 + i, open, flags: C.O_RDONLY })),
    ];
    pid = spawnSession({ command, path, argv, env, cwd, stdio });
  } catch (error) {
    for (const fd of pipes.flatMap(({ read, write }) => [read, write])) libc().close(fd);
    throw error;
  }
  const [stdin, stdout, stderr] = pipes;
  // The child has its copies now.
  libc().close(stdin.read);
  libc().close(stdout.write);
  libc().close(stderr.write);

  const session = new PosixSession(pid);
  const input = writableFd(stdin.write);
  // Our read ends of its output pipes, while their streams have them: a stream closes its fd
  // when it ends, and the number may name another process's pipe or socket soon after.
  const outputs = new Set([stdout.read, stderr.read]);
  const outputEnded = (fd: number) => () => {
    outputs.delete(fd);
    // SIGCHLD alone does not keep Deno alive: once the output ended, poll for the exit too.
    if (outputs.size === 0) childReaper.expectExit(pid);
  };
  const status = new Promise<ExitInfo>((resolve) =>
    childReaper.track(pid, (exit) => {
      session.leaderReaped();
      // Nothing reads the input any more (a job it left behind gets end of file).
      input.shut();
      resolve(exit);
    })
  );
  return {
    pid,
    stdin: input.stream,
    stdout: readableFd(stdout.read, outputEnded(stdout.read)),
    stderr: readableFd(stderr.read, outputEnded(stderr.read)),
    outputPending: () => [...outputs].some((fd) => unreadBytes(fd) > 0),
    // The child has exec'd by now, with the pipes as fds 0-2: the stdin pipe's name identifies
    // it in every process that inherits it. Without /proc the probe says "unknown".
    input: new InputProbe(pid, {
      pipe: fdTarget(pid, 0) ?? undefined,
      input: stdin.write,
    }, launch.wrappers),
    status,
    signal(signo) {
      if (libc().kill(-pid, signo) !== 0 && errno() !== C.ESRCH) throw new Error(strerror(errno()));
    },
    hasLeftovers: () => session.hasLeftovers(),
    endLeftovers: (graceMs) => session.end(graceMs),
    release() {},
  };
}
