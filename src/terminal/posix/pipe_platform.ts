/**
 * The pipe backend on Linux and macOS: programs start and are reaped as in
 * PTY mode (see pipe_child.ts), a program's tree is its process group, and
 * signals go through libc's `kill`, so every signal number reaches the group
 * (`Deno.kill` knows no real-time signals).
 *
 * @module
 */
import type { PipePlatform } from "../pipe.ts";
import { confine } from "./bubblewrap.ts";
import { resolveExecutable } from "./executable.ts";
import { InputProbe } from "./input_state.ts";
import { fdTarget, ownFdsOf } from "./proc_tasks.ts";
import { spawnPipeChild } from "./pipe_child.ts";

/** See the module doc. */
export const posixPipes: PipePlatform = {
  findExecutable: resolveExecutable,
  confine,
  spawn: ({ path, argv, env, cwd, files }, opts) =>
    spawnPipeChild({ command: opts.command, path, argv, env, cwd, files }),
  breakSignal: "SIGQUIT",
  // The child has exec'd by now, with the pipes as fds 0-2: the stdin pipe's name identifies
  // it in every process that inherits it, and finds our write end. Without /proc the probe
  // says "unknown".
  probeInput: ({ pid }, wrappers) =>
    new InputProbe(pid, {
      pipe: fdTarget(pid, 0) ?? undefined,
      input: ownFdsOf([fdTarget(pid, 0)])[0],
    }, wrappers),
};
