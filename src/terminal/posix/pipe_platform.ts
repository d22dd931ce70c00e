/**
 * The pipe backend on Linux and macOS: executables are found as in PTY mode,
 * and signals go through libc's `kill`, so every signal number reaches the
 * group (`Deno.kill` knows no real-time signals).
 *
 * @module
 */
import { C, errno, libc, strerror } from "../../../ffi/libc.ts";
import type { PipePlatform } from "../pipe.ts";
import { resolveExecutable } from "./executable.ts";
import { InputWatch } from "./input_state.ts";
import { fdTarget } from "./proc_tasks.ts";

/** See the module doc. */
export const posixPipes: PipePlatform = {
  findExecutable: resolveExecutable,
  signalGroup(pid, signo) {
    if (libc().kill(-pid, signo) !== 0 && errno() !== C.ESRCH) throw new Error(strerror(errno()));
  },
  breakSignal: "SIGQUIT",
  // The child has exec'd by now, with the stdin pipe as fd 0: its name identifies the pipe
  // in every process that inherits it. Without /proc the watch says "unknown".
  watchInput: (pid) => new InputWatch(pid, { pipe: fdTarget(pid, 0) ?? undefined }),
};
