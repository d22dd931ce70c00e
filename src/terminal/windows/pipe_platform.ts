/**
 * The pipe backend on Windows. Commands are found through the child's PATH
 * and PATHEXT (batch files too: `Deno.Command` runs them through cmd.exe with
 * cmd's quoting). Windows has no process groups: a program's tree is the Job
 * Object it joins right after its spawn (job.ts), which SIGTERM and SIGKILL
 * terminate. Programs on pipes share no console with anyone, so no console
 * interrupt (SIGINT, SIGBREAK, CTRL_C_EVENT) can reach them.
 *
 * @module
 */
import { SIGNALS } from "../../signals.ts";
import type { PipePlatform } from "../pipe.ts";
import { findWindowsProgram } from "./executable.ts";
import { adoptProcess } from "./job.ts";

/** See the module doc. */
export const windowsPipes: PipePlatform = {
  findExecutable: (command, env, cwd) => findWindowsProgram(command, env, cwd),
  adopt(pid) {
    const tree = adoptProcess(pid);
    return {
      signal(signo) {
        if (signo !== SIGNALS.SIGTERM && signo !== SIGNALS.SIGKILL) {
          throw new Error(
            "on Windows a program on pipes has no console, so no console interrupt can reach " +
              "it; start it with pty: true to interrupt it, or end it with SIGTERM or process_kill",
          );
        }
        tree.terminate();
      },
      release: () => tree.release(),
    };
  },
  breakSignal: "SIGBREAK",
};
