/**
 * The pipe backend on Windows: Windows finds commands itself (PATHEXT), and it
 * has no process groups, only the few signals `Deno.kill` maps, and no /proc:
 * whether a program waits for input is never known here (waits fall back to
 * silence and prompt-like lines).
 *
 * @module
 */
import { signalName } from "../../signals.ts";
import type { PipePlatform } from "../pipe.ts";

/** See the module doc. */
export const windowsPipes: PipePlatform = {
  findExecutable: (command) => command,
  signalGroup(pid, signo) {
    try {
      Deno.kill(pid, signalName(signo) as Deno.Signal);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  },
  breakSignal: "SIGBREAK",
  watchInput: () => ({
    beforeInput() {},
    state: () => ({ activity: "unknown", secret: false }),
    outputPending: () => false,
  }),
};
