/**
 * A port on 127.0.0.1 that nobody listens on now (bound, then let go), for a
 * server a test or bench starts on a port of its own.
 *
 * @example
 * ```ts
 * import { freePort } from "./free_port.ts";
 * const port = freePort();
 * if (port <= 0 || port > 65535) throw new Error(`not a port: ${port}`);
 * ```
 *
 * @module
 */

/** A port nobody listens on now. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}
