/**
 * A reply of about 1 MB, for tests and benchmarks of clients that do not
 * read theirs: a kept process with 500,000 characters of output, and the
 * `process_read` whose reply holds them all (JSON, as UTF-16 in the server).
 *
 * @module
 */
import type { Json, Portal } from "./portal_client.ts";

/** Starts that process on `agent`; its id, the read's arguments, and one reply's size in bytes. */
export async function bigReply(agent: Portal): Promise<{ id: number; read: Json; size: number }> {
  const { id } = await agent.call("process_start", {
    command: "sh",
    args: ["-c", "head -c 500000 /dev/zero | tr '\\0' x; echo; echo END; exec sleep 600"],
    keep: true,
  });
  await agent.readUntil(id, (text) => text.includes("END"));
  const read = { id, duration: 3600, unit: "s", max_chars: 500_000 };
  const size = JSON.stringify(await agent.call("process_read", read)).length * 2;
  return { id, read, size };
}
