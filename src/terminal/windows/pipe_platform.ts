/**
 * The pipe backend on Windows: Windows finds commands itself (PATHEXT), and it
 * has no process groups, only the few signals `Deno.kill` maps.
 *
 * @module
 */
import { signalName } from "../../signals.ts";
import type { PipePlatform } from "../pipe.ts";
import { spawnDenoChild } from "./deno_child.ts";

/** See the module doc. */
export const windowsPipes: PipePlatform = {
  findExecutable: (command) => command,
  spawn: spawnDenoChild,
  signalGroup(pid, signo) {
    try {
      Deno.kill(pid, signalName(signo) as Deno.Signal);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  },
  breakSignal: "SIGBREAK",
};
