/**
 * A remote process's `secret_prompt`, asked of this side's person: the
 * remote Portal asks its client (the link) with a form, and the link asks
 * the person through the call that is waiting on it (`askSecret`: a page or
 * a form of this client, or 2026-07-28's input_required rounds). The secret
 * then goes over the link to the remote Portal, which types it at the
 * prompt and keeps it out of its records; it is stored nowhere here.
 *
 * When the asking fails or must end the call first (input_required), the
 * remote is told no (`cancel`: nothing is typed there) and the call ends
 * with the asker's own outcome.
 *
 * @module
 */
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/client";

type Ask = (label: string) => Promise<string>;

/** One call in flight that can ask its person, and what its asking threw. */
interface Asker {
  ask: Ask;
  thrown?: unknown;
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

  /** Runs `call` with `ask` as where the remote's questions go during it. */
  async during<T>(ask: Ask | undefined, call: () => Promise<T>): Promise<T> {
    if (ask === undefined) return await call();
    const asker: Asker = { ask };
    this.#askers.push(asker);
    try {
      const result = await call().catch((error) => {
        if ("thrown" in asker) throw asker.thrown;
        throw error;
      });
      if ("thrown" in asker) throw asker.thrown;
      return result;
    } finally {
      this.#askers.splice(this.#askers.indexOf(asker), 1);
    }
  }

  /** The answer to the remote's `elicitation/create`. */
  async answer(request: ElicitRequest): Promise<ElicitResult> {
    const asker = this.#askers.at(-1);
    const params = request.params as {
      requestedSchema?: { properties?: { secret?: { title?: string } } };
    };
    const label = params.requestedSchema?.properties?.secret?.title;
    if (asker === undefined || label === undefined) return { action: "decline" };
    this.#asking++;
    try {
      return { action: "accept", content: { secret: await asker.ask(label) } };
    } catch (error) {
      asker.thrown = error;
      return { action: "cancel" };
    } finally {
      this.#asking--;
      this.#asked++;
    }
  }
}
