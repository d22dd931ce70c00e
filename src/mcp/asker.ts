/**
 * How Portal asks the person at the client for a secret (`secret_prompt`, a
 * task's password prompt): one {@link Asker}, chosen once per call from
 * what the client speaks ({@link askingWay}), one implementation per way:
 *
 * - `elicitation` (2025-11-25): an elicitation request during the call, or
 *   tied to its task (secret_prompt.ts);
 * - `rounds` (2026-07-28): the call replies `input_required` and the client
 *   calls again with the answer (secret_rounds.ts);
 * - `task` (2026-07-28, a task): the task's `inputRequests`, answered by
 *   `tasks/update` (tasks/questions.ts).
 *
 * Each shows the person Portal's page in URL mode, else a form. A client
 * that declares no elicitation gets no asker, and the core says what to
 * use instead. The core asks through `CallControl.askSecret` and gets an
 * {@link Answer}: the secret, or `asking` (the call ends with the question).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { askingWay } from "./asker.ts";
 *
 * assert.deepEqual(askingWay(false, { url: {}, form: {} }, false), { by: "elicitation", url: true });
 * assert.deepEqual(askingWay(true, {}, false), { by: "rounds", url: false });
 * assert.equal(askingWay(false, {}, true), undefined);
 * ```
 * @module
 */
import type { CallToolResult, ClientCapabilities } from "@modelcontextprotocol/server";
import type { Answer } from "../core/steps/step.ts";

/** One way to ask the person, made for one call (or one task). */
export interface Asker {
  /** Asks for the secret labelled `label`; `signal` withdraws the question. */
  ask(label: string, signal: AbortSignal): Promise<Answer>;
  /** The call's reply that puts the question `label`, for an asker whose {@link ask} says `asking`. */
  question?(label: string): Promise<CallToolResult>;
}

/** How a call asks: by which mechanism, and on Portal's page (`url`) or in a form. */
export interface AskingWay {
  by: "elicitation" | "rounds" | "task";
  url: boolean;
}

/**
 * How a call asks the person, from what its client speaks: 2026-07-28
 * (`modern`) or 2025-11-25, the elicitation `modes` it declares, and
 * whether the call runs as a `task`; undefined when it cannot ask.
 */
export function askingWay(
  modern: boolean,
  modes: ClientCapabilities["elicitation"],
  task: boolean,
): AskingWay | undefined {
  if (modes === undefined) return undefined;
  if (modern) {
    // A bare `elicitation: {}` is form mode, as before modes had names.
    return { by: task ? "task" : "rounds", url: modes.url !== undefined };
  }
  // 2025-11-25 asks on the connection, a task's question tied to it, in a mode it named.
  if (!modes.url && !modes.form) return undefined;
  return { by: "elicitation", url: Boolean(modes.url) };
}
