/**
 * The one error type of Portal's core. Its message is written for the agent
 * that made the call: it says what went wrong and what to do instead.
 *
 * @example
 * ```ts
 * throw new PortalError("Process 7 does not exist. Call process_list to see the ids.");
 * ```
 */
export class PortalError extends Error {
  override name = "PortalError";
}
