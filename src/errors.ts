/**
 * The one error type of Portal's core, and how an error message treats what
 * the caller sent. A message is written for the agent that made the call: it
 * says what went wrong and what to do instead. It quotes a bad value by a
 * short prefix only ({@link quote}), and no error reply, Portal's own or the
 * SDK's, grows past {@link ERROR_MAX_CHARS} ({@link bounded}): a 9 MiB
 * argument must not come back as a 9 MiB error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bounded, PortalError, quote } from "./errors.ts";
 *
 * const error = new PortalError("No process with id 7. Call process_list to see the ids.");
 * assert.equal(error.name, "PortalError");
 * assert.equal(quote("ssh"), '"ssh"');
 * assert.equal(quote("x".repeat(1000)), `"${"x".repeat(60)}"… (1000 characters)`);
 * const long = bounded(`Tool ${"y".repeat(100_000)} not found`);
 * assert.ok(long.length < 2100 && long.startsWith("Tool yyy") && long.endsWith("y not found"));
 * ```
 * @module
 */

import { ERROR_MAX_CHARS, QUOTED_CHARS } from "./limits.ts";

export class PortalError extends Error {
  override name = "PortalError";
}

/** `value` for an error message: JSON-quoted (escapes visible), at most {@link QUOTED_CHARS}. */
export function quote(value: string): string {
  if (value.length <= QUOTED_CHARS) return JSON.stringify(value);
  return `${JSON.stringify(value.slice(0, QUOTED_CHARS))}… (${value.length} characters)`;
}

/** `message` within {@link ERROR_MAX_CHARS}: its head and tail around a count of what was cut. */
export function bounded(message: string): string {
  if (message.length <= ERROR_MAX_CHARS) return message;
  const tail = 300;
  const head = ERROR_MAX_CHARS - tail - 60;
  const cut = message.length - head - tail;
  return `${message.slice(0, head)}…[${cut} characters left out]…${message.slice(-tail)}`;
}
