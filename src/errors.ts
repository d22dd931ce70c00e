/**
 * The one error type of Portal's core, and how an error message treats what
 * the caller sent. A message is written for the agent that made the call: it
 * says what went wrong and what to do instead. Its {@link ErrorKind} and data
 * (a process id, a machine, a limit) are for code: a client, a relay or a test
 * decides on them, never on the wording (a tool error carries them in its
 * `_meta`, docs/tools.md). It quotes a bad value by a
 * short prefix only ({@link quote}), and no error reply, Portal's own or the
 * SDK's, grows past {@link ERROR_MAX_CHARS} ({@link bounded}): a 9 MiB
 * argument must not come back as a 9 MiB error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bounded, PortalError, quote } from "./errors.ts";
 *
 * const error = new PortalError(
 *   "No process with id 7. Call process_list to see the ids.",
 *   "not_found",
 *   { id: 7 },
 * );
 * assert.equal(error.name, "PortalError");
 * assert.deepEqual([error.kind, error.data], ["not_found", { id: 7 }]);
 * assert.equal(new PortalError("command is empty.").kind, "invalid");
 * assert.equal(quote("ssh"), '"ssh"');
 * assert.equal(quote("x".repeat(1000)), `"${"x".repeat(60)}"… (1000 characters)`);
 * const long = bounded(`Tool ${"y".repeat(100_000)} not found`);
 * assert.ok(long.length < 2100 && long.startsWith("Tool yyy") && long.endsWith("y not found"));
 * ```
 * @module
 */

import { ERROR_MAX_CHARS, QUOTED_CHARS } from "./limits.ts";

/**
 * What kind of refusal an error is. Each says what the caller can do about it;
 * the message says it in words.
 */
export type ErrorKind =
  /** The arguments cannot be done as given (the default): change them. */
  | "invalid"
  /** No process has that id or name (here, or for this client). */
  | "not_found"
  /** The process has ended: it takes no input, signal or resize; its records remain. */
  | "ended"
  /** The process (or a name) is not in a state that allows it now: do what the message says first. */
  | "conflict"
  /** A limit was reached (`limit`: its name, `max`: its value). */
  | "limit"
  /** The person's policy refuses it. */
  | "denied"
  /** This client, OS, server or program cannot do it at all. */
  | "unsupported"
  /** The person was asked and gave no answer, or declined. */
  | "declined"
  /** A deadline passed before it was done. */
  | "timeout"
  /** Another machine could not be reached or used (`machine`). */
  | "unreachable"
  /** The records database cannot be written. */
  | "storage"
  /** The OS failed a call Portal made (a terminal, a pipe, a signal): not the caller's mistake. */
  | "system";

/** What an error is about, for code to act on. */
export interface ErrorData {
  /** The process (its id as the caller knows it). */
  id?: number;
  /** A process's name. */
  name?: string;
  /** Another machine (its name, as process_start's `machine` gave it). */
  machine?: string;
  /** The limit reached, as limits.ts names it, and its value. */
  limit?: string;
  max?: number;
}

/**
 * Where a tool error carries its kind and data: `_meta["io.portal/error"]` of
 * the result, as `{ kind, ...data }` (docs/tools.md).
 */
export const ERROR_META_KEY = "io.portal/error";

export class PortalError extends Error {
  override name = "PortalError";
  readonly kind: ErrorKind;
  readonly data: ErrorData;

  constructor(message: string, kind: ErrorKind = "invalid", data: ErrorData = {}) {
    super(message);
    this.kind = kind;
    this.data = data;
  }
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
