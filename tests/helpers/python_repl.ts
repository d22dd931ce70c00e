/**
 * The shortest proof that a terminal program works through a Portal (over
 * either revision, under a policy or not): python's REPL on a PTY, started
 * to its prompt, answers `6*7`.
 *
 * @module
 */
import type { Json } from "../../dev/portal_client.ts";

/** Starts `python3 -q` on a PTY to its prompt and types `6*7`; its id and the step's reply. */
export async function pythonAnswers(
  portal: { call(name: string, args?: Record<string, unknown>): Promise<Json> },
): Promise<{ id: number; step: Json }> {
  const { id } = await portal.call("process_start", {
    command: "python3",
    args: ["-q"],
    pty: true,
    wait: "ready",
  });
  return { id, step: await portal.call("process_write", { id, content: "6*7\n" }) };
}
