/**
 * Killing processes with a deadline: a process (its group or session, and
 * its leftovers) gets SIGTERM, then SIGKILL after a grace; one still there
 * long after SIGKILL is reported, never waited for forever, and never stops
 * the others from being killed.
 *
 * @module
 */
import { withTimeout } from "../../async.ts";
import { PortalError } from "../../errors.ts";
import { KILL_DEADLINE_MS } from "../../limits.ts";
import type { KillAllResult } from "../model/schema.ts";
import type { ManagedProcess } from "./managed_process.ts";

/** Kills `process`, or throws once it outlives SIGKILL by {@link KILL_DEADLINE_MS}. */
export async function killWithin(process: ManagedProcess): Promise<void> {
  const gone = await withTimeout(
    process.kill().then(() => true),
    KILL_DEADLINE_MS,
    false,
  );
  if (!gone) {
    const seconds = KILL_DEADLINE_MS / 1000;
    throw new PortalError(
      `Process ${process.id} (pid ${process.pid}) or what it started is not gone ${seconds} s ` +
        "after SIGKILL: something holds it (a debugger attached to it, or uninterruptible " +
        "sleep on a hung disk or network file system). Call process_kill again later.",
      "timeout",
      { id: process.id },
    );
  }
}

/** What killing each of several processes did. */
export type KilledEach = Omit<KillAllResult, "left_running">;

/**
 * Kills every one of `targets` at once (running ones, and the leftovers of
 * ended ones); says which were killed, whose leftovers were, and which failed.
 */
export async function killEach(targets: ManagedProcess[]): Promise<KilledEach> {
  const wasRunning = targets.map((p) => p.status === "running");
  const outcomes = await Promise.allSettled(targets.map((p) => killWithin(p)));
  const result: KilledEach = { killed: [], leftovers_killed: [], failed: [] };
  outcomes.forEach((outcome, i) => {
    const { id } = targets[i];
    if (outcome.status === "rejected") {
      result.failed.push({
        id,
        error: (outcome.reason as Error)?.message ?? String(outcome.reason),
      });
    } else (wasRunning[i] ? result.killed : result.leftovers_killed).push(id);
  });
  return result;
}
