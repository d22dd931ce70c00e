/**
 * The terminal backends of this OS, as src/platform.ts's `TERMINALS` names
 * them: the one module that imports both stacks, POSIX's and Windows', apart
 * from platform.ts so that a door, which starts no program, loads neither.
 *
 * @module
 */
import { TERMINALS } from "../platform.ts";
import { spawnOnPipes } from "./pipe.ts";
import { posixPipes } from "./posix/pipe_child.ts";
import { processRuns as posixProcessRuns } from "./posix/proc_tasks.ts";
import { spawnPosixPty } from "./posix/pty_spawn.ts";
import type { Spawn } from "./terminal.ts";
import { spawnConPty } from "./windows/conpty_spawn.ts";
import { containChildren } from "./windows/job.ts";
import { windowsPipes } from "./windows/deno_child.ts";

const WINDOWS = TERMINALS === "windows";

/** Starts a program on OS pipes; returns at once (events follow), or throws `PortalError`. */
export const spawnPipe: Spawn = WINDOWS
  ? contained((opts, events) => spawnOnPipes(windowsPipes, opts, events))
  : (opts, events) => spawnOnPipes(posixPipes, opts, events);

/**
 * Starts a program on a new pseudo-terminal (a ConPTY on Windows); returns
 * at once, or throws `PortalError`.
 */
export const spawnPty: Spawn = WINDOWS ? contained(spawnConPty) : spawnPosixPty;

/**
 * Whether process `pid` runs (a zombie does not); Windows: always, as
 * nothing there asks (the shell integration's files, swept by a host, are
 * POSIX's).
 */
export const processRuns: (pid: number) => boolean = WINDOWS ? () => true : posixProcessRuns;

/**
 * Windows: before the first child exists, the server joins a kill-on-close
 * Job Object that every child is then born into (windows/job.ts).
 */
function contained(spawn: Spawn): Spawn {
  return (opts, events) => {
    containChildren();
    return spawn(opts, events);
  };
}
