/**
 * Who watches a process, and who holds its keyboard: the agent (always,
 * until a person takes over on the watch page) or one person's page. While a
 * person holds it, the agent's writes are refused (the manager asks
 * {@link Viewers.controlledBy}); what the person types is kept, as the
 * records show it, until the agent's next call on the process takes it
 * ({@link Viewers.takeTyped}), so the agent learns what happened without
 * reading the stdin records. Every watcher hears each output chunk, resize
 * and change of hands ({@link LiveEvent}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Viewers } from "./viewers.ts";
 *
 * const viewers = new Viewers();
 * const heard: string[] = [];
 * viewers.observe((event) => heard.push(event.kind));
 * const page = {};
 * assert.equal(viewers.controlledBy, "agent");
 * viewers.take(page);
 * viewers.typed("print(6*7)\r");
 * assert.equal(viewers.controlledBy, "person");
 * assert.equal(viewers.giveBack({}), false); // another page holds nothing
 * assert.equal(viewers.giveBack(page), true);
 * assert.deepEqual(viewers.takeTyped(), { person_input: "print(6*7)\r" });
 * assert.deepEqual(viewers.takeTyped(), {});
 * assert.deepEqual(heard, ["control", "control"]);
 * ```
 * @module
 */
/** Who types into a process now. */
export type Controller = "agent" | "person";

/** What a process tells whoever observes it, in the order it happened. */
export type LiveEvent =
  | { kind: "output"; seq: number; bytes: Uint8Array }
  /** The terminal was resized once the output up to `afterSeq` had been drawn. */
  | { kind: "resize"; afterSeq: number; cols: number; rows: number }
  /** Who holds the keyboard now: a page, or nobody (the agent). */
  | { kind: "control"; holder: object | null; controlledBy: Controller }
  | { kind: "end" };

/** What a person typed that the agent has not been told (at most this much is kept). */
const TYPED_MAX_CHARS = 4000;

/** One process's watch pages, and its keyboard: the agent's, or one page's. */
export class Viewers {
  readonly #observers = new Set<(event: LiveEvent) => void>();
  /** The page that holds the keyboard, if any (any object that names it). */
  #holder: object | null = null;
  #typed = "";
  #omitted = 0;

  get controlledBy(): Controller {
    return this.#holder === null ? "agent" : "person";
  }

  /** The page that holds the keyboard, or null. */
  get holder(): object | null {
    return this.#holder;
  }

  /** Calls `listener` with every event from now on; returns the unsubscribe. */
  observe(listener: (event: LiveEvent) => void): () => void {
    this.#observers.add(listener);
    return () => this.#observers.delete(listener);
  }

  emit(event: LiveEvent): void {
    for (const observer of this.#observers) observer(event);
  }

  /** `page` takes the keyboard (from the agent, or from another page: the last one wins). */
  take(page: object): void {
    this.#holder = page;
    this.emit({ kind: "control", holder: page, controlledBy: "person" });
  }

  /** `page` gives the keyboard back to the agent; false if `page` did not hold it. */
  giveBack(page: object): boolean {
    if (this.#holder !== page) return false;
    this.#holder = null;
    this.emit({ kind: "control", holder: null, controlledBy: "agent" });
    return true;
  }

  /** Notes `record`, the stdin record of what the person typed (secrets as the records show them). */
  typed(record: string): void {
    this.#typed += record;
    if (this.#typed.length > TYPED_MAX_CHARS) {
      this.#omitted += this.#typed.length - TYPED_MAX_CHARS;
      this.#typed = this.#typed.slice(-TYPED_MAX_CHARS);
    }
  }

  /** What the person typed since the last call, for the agent's reply; then it is forgotten. */
  takeTyped(): { person_input?: string } {
    if (this.#typed === "") return {};
    const head = this.#omitted > 0 ? `[${this.#omitted} earlier characters left out]` : "";
    const person_input = head + this.#typed;
    this.#typed = "";
    this.#omitted = 0;
    return { person_input };
  }
}
