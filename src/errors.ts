/**
 * The one error type of Portal's core. Its message is written for the agent
 * that made the call: it says what went wrong and what to do instead.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PortalError } from "./errors.ts";
 *
 * const error = new PortalError("No process with id 7. Call process_list to see the ids.");
 * assert.equal(error.name, "PortalError");
 * ```
 */
export class PortalError extends Error {
  override name = "PortalError";
}
