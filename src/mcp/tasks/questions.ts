/**
 * A task's questions to the person (its `input_required`): when the program
 * it waits on stops at a password prompt (`waiting_for_secret`), the person
 * at the client that started it is asked for the secret, in the way of the
 * task's revision. 2026-07-28 ({@link TaskQuestions}): as `secret_prompt`
 * asks (secret_rounds.ts: Portal's page in URL mode, else a form), under a
 * key of `inputRequests` unique over the task's life; the answer, by
 * `tasks/update`, is typed there (then Enter) and the wait goes on.
 * 2025-11-25 ({@link ElicitedQuestions}): an elicitation request tied to the
 * task, its answer typed the same way. One question is open at a time. It is withdrawn
 * once the program no longer waits there (the person typed it on the watch
 * page, or the program gave up). After an answer, the next question waits
 * until the program was seen doing something else: a prompt that comes back
 * is a new question, one not read yet is not.
 *
 * @module
 */
import {
  type InputRequest,
  inputResponse,
  type InputResponses,
} from "@modelcontextprotocol/server";
import { bounded } from "../../errors.ts";
import type { SecretPage } from "../secret_page.ts";
import { secretIn, secretQuestion } from "../secret_rounds.ts";

/** How a task asks the person for the secret its program waits for, and types it. */
export interface SecretAsker {
  /** URL mode (Portal's page) rather than a form. */
  url: boolean;
  /** What the person is told is asked for by process `id`. */
  label(id: number): string;
  /** Types the secret, then Enter, at process `id`'s password prompt (refused if it is gone). */
  type(id: number, secret: string): Promise<void>;
}

/** A task's questions to the person, whichever way its client is asked. */
export interface Questions {
  /** What is asked now, in words (the status message says it); undefined when nothing is. */
  readonly asked?: string;
  /** What went wrong with the last answer, for the status message. */
  readonly note?: string;
  /** The open question, 2026-07-28's way (`inputRequests`); none the other way. */
  readonly inputRequests?: Record<string, InputRequest>;
  /** Sees process `id`'s state (each second of the wait): asks, or withdraws. */
  see(progress: { id: number; state: string }): void;
  /** 2026-07-28's `tasks/update`: the answer to the open question, if there is one. */
  answer?(inputResponses: unknown, signal: AbortSignal): void;
  /** Drops the open question. */
  withdraw(): void;
}

/** What the questions tell their task. */
export interface QuestionsListener {
  /** A question was opened (true) or is no longer open (false). */
  asking(open: boolean): void;
  /** The person declined, or no answer came: `why` says it; nothing was typed. */
  declined(why: string): void;
}

/** The questions of one task of 2026-07-28: `inputRequests`, answered by `tasks/update`. */
export class TaskQuestions implements Questions {
  /** What went wrong with the last answer, for the status message. */
  note?: string;
  #open?: { key: string; request: InputRequest; page?: SecretPage; id: number; label: string };
  #asked = 0;
  #answered = false;
  readonly #asker: SecretAsker;
  readonly #listener: QuestionsListener;

  constructor(asker: SecretAsker, listener: QuestionsListener) {
    this.#asker = asker;
    this.#listener = listener;
  }

  get asked(): string | undefined {
    return this.#open && `${this.#open.label} (inputRequests; answer with tasks/update)`;
  }

  /** The open question, as `inputRequests`. */
  get inputRequests(): Record<string, InputRequest> | undefined {
    return this.#open && { [this.#open.key]: this.#open.request };
  }

  /** Sees process `id`'s state (each second of the wait): asks, or withdraws. */
  see({ id, state }: { id: number; state: string }): void {
    if (state !== "waiting_for_secret") {
      this.#answered = false;
      if (this.#open) {
        this.withdraw();
        this.#listener.asking(false);
      }
      return;
    }
    if (this.#open || this.#answered) return;
    const label = this.#asker.label(id);
    const { request, page } = secretQuestion(label, this.#asker.url);
    this.#open = { key: `secret-${++this.#asked}`, request, page, id, label };
    this.#listener.asking(true);
  }

  /**
   * Takes the answer to the open question from `inputResponses`, if there is
   * one (others are ignored, as the extension says), and types it; `signal`
   * ends a wait for the page.
   */
  answer(inputResponses: unknown, signal: AbortSignal): void {
    const open = this.#open;
    if (open === undefined) return;
    const answer = inputResponse(inputResponses as InputResponses, open.key);
    if (answer.kind === "missing") return;
    this.#open = undefined;
    this.#listener.asking(false);
    void secretIn(answer, open.page, { signal })
      .then(async (secret) => {
        await this.#asker.type(open.id, secret);
        this.#answered = true;
        this.note = undefined;
      }, (error: Error) => this.#listener.declined(error.message))
      .catch((error: Error) => {
        this.note = `the answer was not typed: ${bounded(error.message)}`;
      });
  }

  /** Drops the open question, and closes its page. */
  withdraw(): void {
    void this.#open?.page?.close();
    this.#open = undefined;
  }
}

/** How a 2025-11-25 task asks: an elicitation request; `signal` withdraws it. */
export type Elicit = (label: string, signal: AbortSignal) => Promise<string>;

/**
 * The questions of one task of 2025-11-25 (SEP-1732): the task goes to
 * `input_required` and the person is asked by an elicitation request tied
 * to it (`io.modelcontextprotocol/related-task`), sent at once on the
 * connection; the answer is typed as with `secret_prompt`. A decline or no
 * answer ends the wait, nothing typed; the question is withdrawn once the
 * program no longer waits there.
 */
export class ElicitedQuestions implements Questions {
  note?: string;
  #open?: { id: number; label: string; withdrawn: AbortController };
  #answered = false;
  readonly #asker: SecretAsker;
  readonly #elicit: Elicit;
  readonly #listener: QuestionsListener;

  constructor(asker: SecretAsker, elicit: Elicit, listener: QuestionsListener) {
    this.#asker = asker;
    this.#elicit = elicit;
    this.#listener = listener;
  }

  get asked(): string | undefined {
    return this.#open && `${this.#open.label} (an elicitation request tied to this task)`;
  }

  see({ id, state }: { id: number; state: string }): void {
    if (state !== "waiting_for_secret") {
      this.#answered = false;
      if (this.#open) {
        this.withdraw();
        this.#listener.asking(false);
      }
      return;
    }
    if (this.#open || this.#answered) return;
    const label = this.#asker.label(id);
    this.#open = { id, label, withdrawn: new AbortController() };
    this.#listener.asking(true);
    this.#ask();
  }

  withdraw(): void {
    this.#open?.withdrawn.abort();
    this.#open = undefined;
  }

  #ask(): void {
    const open = this.#open!;
    this.#elicit(open.label, open.withdrawn.signal).then(async (secret) => {
      if (this.#open !== open) return;
      this.#open = undefined;
      this.#answered = true; // Not asked again before the program was seen past the prompt.
      try {
        await this.#asker.type(open.id, secret);
        this.note = undefined;
      } catch (error) {
        this.#answered = false;
        this.note = `the answer was not typed: ${bounded((error as Error).message)}`;
      }
      this.#listener.asking(false);
    }, (error: Error) => {
      if (this.#open !== open) return; // Withdrawn: the program no longer waits there.
      this.#open = undefined;
      this.#listener.declined(error.message);
    });
  }
}
