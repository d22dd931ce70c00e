/**
 * A remote process's `secret_prompt`, asked of this side's person: the
 * remote Portal asks its client (the link) with a form, and the link asks
 * the person through the call that is waiting on it (`askSecret`: the call's
 * asker, src/mcp/asker.ts: a page or a form of this client, or 2026-07-28's
 * input_required rounds). The secret
 * then goes over the link to the remote Portal, which types it at the
 * prompt and keeps it out of its records; it is stored nowhere here.
 *
 * The remote may ask only during a call that carries the agent's
 * `secret_prompt`, and its person is asked in the agent's words, not the
 * remote's: a hostile remote can neither put a question of its own to the
 * person nor stop a call's deadline (which waits while a person is asked)
 * by asking during any other call.
 *
 * When the asking fails, or must end the call first (input_required: the
 * asker's answer is `asking`), the remote is told no (`cancel`: nothing is
 * typed there) and the call ends with the asker's own outcome: its error,
 * or the question ({@link NeedsInput}) the call's reply puts.
 *
 * @module
 */
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/client";
import type { Answer, NeedsInput } from "../core/steps/step.ts";

type Ask = (label: string) => Promise<Answer>;

/** One call in flight that can ask its person, and what its asking threw or left to its reply. */
interface Asker {
  ask: Ask;
  /** The agent's `secret_prompt`: what the person is asked, whatever the remote's form says. */
  label: string;
  thrown?: unknown;
  /** The label of the question the call's reply puts. */
  asking?: string;
}

export class SecretRelay {
  /** The calls in flight that can ask, newest last: a question goes to the newest. */
  readonly #askers: Asker[] = [];
  #asking = 0;
  #asked = 0;

  /** Whether a question is with a person now (a relayed call's deadline waits for it). */
  get asking(): boolean {
    return this.#asking > 0;
  }

  /** How many questions were answered (or failed) so far. */
  get asked(): number {
    return this.#asked;
  }

  /**
   * Runs `call` with `ask` as where the remote's questions go during it,
   * each asked as `label` (the agent's `secret_prompt`); without both, the
   * remote's questions are declined.
   */
  async during<T>(
    ask: Ask | undefined,
    label: string | undefined,
    call: () => Promise<T>,
  ): Promise<T | NeedsInput> {
    if (ask === undefined || label === undefined) return await call();
    const asker: Asker = { ask, label };
    this.#askers.push(asker);
    const outcome = () => {
      if ("thrown" in asker) throw asker.thrown;
      return asker.asking === undefined ? undefined : { needsInput: { secret: asker.asking } };
    };
    try {
      const result = await call().catch((error) => {
        const asked = outcome();
        if (asked) return asked;
        throw error;
      });
      return outcome() ?? result;
    } finally {
      this.#askers.splice(this.#askers.indexOf(asker), 1);
    }
  }

  /** The answer to the remote's `elicitation/create`. */
  async answer(request: ElicitRequest): Promise<ElicitResult> {
    const asker = this.#askers.at(-1);
    const params = request.params as { requestedSchema?: { properties?: { secret?: unknown } } };
    // A Portal asks for one field, `secret`; its title is the agent's label, which is used here.
    if (asker === undefined || params.requestedSchema?.properties?.secret === undefined) {
      return { action: "decline" };
    }
    const { label } = asker;
    this.#asking++;
    try {
      const answer = await asker.ask(label);
      if ("secret" in answer) return { action: "accept", content: { secret: answer.secret } };
      asker.asking = label;
      return { action: "cancel" };
    } catch (error) {
      asker.thrown = error;
      return { action: "cancel" };
    } finally {
      this.#asking--;
      this.#asked++;
    }
  }
}
