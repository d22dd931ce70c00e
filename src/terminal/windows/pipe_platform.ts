/**
 * The pipe backend on Windows. Commands are found through the child's PATH
 * and PATHEXT (batch files too: `Deno.Command` runs them through cmd.exe with
 * cmd's quoting). Windows has no process groups: a program's tree is the Job
 * Object it joins right after its spawn (deno_child.ts), which SIGTERM and
 * SIGKILL terminate. Programs on pipes share no console with anyone, so no
 * console interrupt (SIGINT, SIGBREAK, CTRL_C_EVENT) can reach them.
 * There is no /proc: whether a program waits for input is never known here
 * (waits fall back to silence and prompt-like lines).
 *
 * @module
 */
import type { PipePlatform } from "../pipe.ts";
import { spawnDenoChild } from "./deno_child.ts";
import { findWindowsProgram } from "./executable.ts";

/** See the module doc. */
export const windowsPipes: PipePlatform = {
  findExecutable: (command, env, cwd) => findWindowsProgram(command, env, cwd),
  spawn: (launch, opts) => spawnDenoChild(launch.path, opts, launch.env),
  breakSignal: "SIGBREAK",
  probeInput: () => ({
    beforeInput() {},
    state: () => ({ activity: "unknown", secret: false, taken: false }),
    close() {},
  }),
};
