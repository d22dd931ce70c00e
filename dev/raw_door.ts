/**
 * A Portal door run by hand on pipes, for tests and benchmarks of the wire
 * that the SDK client would hide: JSON-RPC lines written to its stdin as
 * they are, its stdout read when, and if, the caller chooses (a client that
 * stops reading its replies, one that closes its input right after asking).
 *
 * @example
 * ```ts ignore
 * const door = await spawnDoor(dir);
 * const stdin = door.stdin.getWriter();
 * await handshake(stdin, door.stdout, "deaf");
 * await stdin.write(jsonLine({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
 * ```
 * @module
 */
import { initializeRequest, MAIN, serverEnv } from "./portal_client.ts";

/**
 * `portal` with `args` for the Portal directory `dir` (a door to its host, or
 * with `--no-host` the single-process server), on pipes.
 */
export async function spawnDoor(dir: string, args: string[] = []): Promise<Deno.ChildProcess> {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    env: await serverEnv(dir),
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
}

/** One JSON-RPC message as the line a client writes. */
export function jsonLine(message: unknown): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(message)}\n`);
}

/**
 * Opens the MCP session as client `name`: sends `initialize` (id 1), reads
 * `stdout` up to its reply (the door writes nothing more unasked), then sends
 * `notifications/initialized`; `stdout` is free again for the caller.
 */
export async function handshake(
  stdin: WritableStreamDefaultWriter<Uint8Array>,
  stdout: ReadableStream<Uint8Array>,
  name: string,
): Promise<void> {
  await stdin.write(jsonLine(initializeRequest(name)));
  const reader = stdout.getReader();
  try {
    let text = "";
    while (!text.includes('"id":1')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the door ended before its initialize reply: ${text}`);
      text += new TextDecoder().decode(value);
    }
  } finally {
    reader.releaseLock();
  }
  await stdin.write(jsonLine({ jsonrpc: "2.0", method: "notifications/initialized" }));
}
