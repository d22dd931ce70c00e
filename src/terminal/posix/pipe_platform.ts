/**
 * The pipe backend on Linux and macOS: executables are found as in PTY mode,
 * a program's tree is its process group, and signals go through libc's
 * `kill`, so every signal number reaches the group (`Deno.kill` knows no
 * real-time signals).
 *
 * @module
 */
import { C, errno, libc, strerror } from "../../../ffi/libc.ts";
import type { PipePlatform } from "../pipe.ts";
import { resolveExecutable } from "./executable.ts";

/** See the module doc. */
export const posixPipes: PipePlatform = {
  findExecutable: resolveExecutable,
  adopt: (pid) => ({
    signal(signo) {
      if (libc().kill(-pid, signo) !== 0 && errno() !== C.ESRCH) throw new Error(strerror(errno()));
    },
    release() {},
  }),
  breakSignal: "SIGQUIT",
};
