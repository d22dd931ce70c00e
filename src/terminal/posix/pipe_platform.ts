/**
 * The pipe backend on Linux and macOS: programs start and are reaped as in
 * PTY mode (see pipe_child.ts), a program's tree is its process group, and
 * signals go through libc's `kill`, so every signal number reaches the group
 * (`Deno.kill` knows no real-time signals).
 *
 * @module
 */
import type { PipePlatform } from "../pipe.ts";
import { resolveExecutable } from "./executable.ts";
import { spawnPipeChild } from "./pipe_child.ts";

/** See the module doc. */
export const posixPipes: PipePlatform = {
  findExecutable: resolveExecutable,
  spawn: (path, opts, env) =>
    spawnPipeChild({
      command: opts.command,
      path,
      argv: [opts.command, ...opts.args],
      env,
      cwd: opts.cwd,
    }),
  breakSignal: "SIGQUIT",
};
