/**
 * The program most host and attach tests keep: python3 on a PTY, kept
 * (it outlives its client) and named `calc`, started and at its prompt.
 *
 * @module
 */
import type { Json, Portal } from "../../dev/portal_client.ts";

/** Starts `calc` on `portal`; process_start's reply (`id`, `os_pid`). */
export async function startCalc(portal: Portal): Promise<Json> {
  return await portal.call("process_start", {
    command: "python3",
    args: ["-q"],
    pty: true,
    keep: true,
    name: "calc",
    wait: "ready",
  });
}
