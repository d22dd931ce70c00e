/**
 * A task's questions to the person (its `input_required`): when the program
 * it waits on stops at a password prompt (`waiting_for_secret`), the person
 * at the client that started it is asked for the secret by the task's
 * {@link TaskAsker} (asker.ts chose it, once, from what the client speaks),
 * and the answer is typed there (then Enter) while the wait goes on.
 * 2026-07-28 ({@link TaskRounds}): the task's `inputRequests` (as
 * `secret_prompt` asks, secret_rounds.ts: Portal's page in URL mode, else a
 * form) under a key unique over the task's life, answered by
 * `tasks/update`. 2025-11-25: an elicitation request tied to the task
 * (secret_prompt.ts). One question is open at a time. It is withdrawn once
 * the program no longer waits there (the person typed it on the watch page,
 * or the program gave up). After an answer, the next question waits until
 * the program was seen doing something else: a prompt that comes back is a
 * new question, one not read yet is not. A decline, or no answer, ends the
 * wait, nothing typed.
 *
 * @module
 */
import {
  type InputRequest,
  inputResponse,
  type InputResponses,
} from "@modelcontextprotocol/server";
import type { Answer } from "../../core/steps/step.ts";
import { bounded } from "../../errors.ts";
import type { Asker } from "../asker.ts";
import type { SecretPage } from "../secret_page.ts";
import { secretIn, secretQuestion } from "../secret_rounds.ts";

/** Where a task's secret goes: what the person is told it is for, and how it is typed. */
export interface PromptAt {
  /** What the person is told is asked for by process `id`. */
  label(id: number): string;
  /** Types the secret, then Enter, at process `id`'s password prompt (refused if it is gone). */
  type(id: number, secret: string): Promise<void>;
}

/** A task's {@link Asker}: how its question reaches the person, in words, and 2026-07-28's round. */
export interface TaskAsker extends Asker {
  /** How the question reaches the person, for the status message. */
  readonly how: string;
  /** The open question, 2026-07-28's way (`inputRequests`); none the other way. */
  readonly inputRequests?: Record<string, InputRequest>;
  /** 2026-07-28's `tasks/update`: takes the answer to the open question, if there is one. */
  answer?(inputResponses: unknown, signal: AbortSignal): boolean;
}

/** What the questions tell their task. */
export interface QuestionsListener {
  /** A question was opened (true) or is no longer open (false). */
  asking(open: boolean): void;
  /** The person declined, or no answer came: `why` says it; nothing was typed. */
  declined(why: string): void;
}

/** A task's questions to the person, as its task sees them. */
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

/** The questions of one task, asked by its {@link TaskAsker}. */
export class TaskQuestions implements Questions {
  /** What went wrong with the last answer, for the status message. */
  note?: string;
  /** The open question; `told` while its task is told it asks (not once an answer came). */
  #open?: { id: number; label: string; withdrawn: AbortController; told: boolean };
  #answered = false;
  readonly #asker: TaskAsker;
  readonly #prompt: PromptAt;
  readonly #listener: QuestionsListener;

  constructor(asker: TaskAsker, prompt: PromptAt, listener: QuestionsListener) {
    this.#asker = asker;
    this.#prompt = prompt;
    this.#listener = listener;
  }

  /** What is asked now, in words (the status message says it); undefined when nothing is. */
  get asked(): string | undefined {
    return this.#open && `${this.#open.label} (${this.#asker.how})`;
  }

  /** The open question, 2026-07-28's way (`inputRequests`). */
  get inputRequests(): Record<string, InputRequest> | undefined {
    return this.#open && this.#asker.inputRequests;
  }

  /** Sees process `id`'s state (each second of the wait): asks, or withdraws. */
  see({ id, state }: { id: number; state: string }): void {
    if (state !== "waiting_for_secret") {
      this.#answered = false;
      const told = this.#open?.told;
      this.withdraw();
      if (told) this.#listener.asking(false);
      return;
    }
    if (this.#open || this.#answered) return;
    const label = this.#prompt.label(id);
    const open = { id, label, withdrawn: new AbortController(), told: true };
    this.#open = open;
    const asked = this.#asker.ask(open.label, open.withdrawn.signal);
    // After the asking: the task's status, told at once, shows the question.
    this.#listener.asking(true);
    asked.then(async (answer) => {
      if (this.#open !== open || !("secret" in answer)) return;
      this.#open = undefined;
      this.#answered = true; // Not asked again before the program was seen past the prompt.
      if (open.told) this.#listener.asking(false);
      try {
        await this.#prompt.type(open.id, answer.secret);
        this.note = undefined;
      } catch (error) {
        this.#answered = false;
        this.note = `the answer was not typed: ${bounded((error as Error).message)}`;
      }
    }, (error: Error) => {
      if (this.#open !== open) return; // Withdrawn: the program no longer waits there.
      this.#open = undefined;
      this.#listener.declined(error.message);
    });
  }

  /**
   * 2026-07-28's `tasks/update`: the answer to the open question, if there
   * is one; once taken, the task works again while it is had (from the page).
   */
  answer(inputResponses: unknown, signal: AbortSignal): void {
    const open = this.#open;
    if (!open?.told || !this.#asker.answer?.(inputResponses, signal)) return;
    open.told = false;
    this.#listener.asking(false);
  }

  /** Drops the open question (and closes its page). */
  withdraw(): void {
    this.#open?.withdrawn.abort();
    this.#open = undefined;
  }
}

/**
 * The `task` {@link Asker} (2026-07-28): the question is the task's
 * `inputRequests`, on Portal's page if `url`, else a form; the answer comes
 * by `tasks/update`, and others are ignored, as the extension says.
 */
export class TaskRounds implements TaskAsker {
  readonly how = "inputRequests; answer with tasks/update";
  readonly #url: boolean;
  #open?: {
    key: string;
    request: InputRequest;
    page?: SecretPage;
    answer: PromiseWithResolvers<Answer>;
  };
  #asked = 0;

  constructor(url: boolean) {
    this.#url = url;
  }

  get inputRequests(): Record<string, InputRequest> | undefined {
    return this.#open && { [this.#open.key]: this.#open.request };
  }

  ask(label: string, signal: AbortSignal): Promise<Answer> {
    const { request, page } = secretQuestion(label, this.#url);
    const open = {
      key: `secret-${++this.#asked}`,
      request,
      page,
      answer: Promise.withResolvers<Answer>(),
    };
    this.#open = open;
    signal.addEventListener("abort", () => {
      if (this.#open === open) this.#open = undefined;
      void page?.close();
      open.answer.reject(signal.reason);
    }, { once: true });
    return open.answer.promise;
  }

  /**
   * Takes the answer to the open question from `inputResponses`, if there is
   * one (whether it did); `signal` ends a wait for the page.
   */
  answer(inputResponses: unknown, signal: AbortSignal): boolean {
    const open = this.#open;
    if (open === undefined) return false;
    const answer = inputResponse(inputResponses as InputResponses, open.key);
    if (answer.kind === "missing") return false;
    this.#open = undefined;
    secretIn(answer, open.page, { signal })
      .then((secret) => open.answer.resolve({ secret }), open.answer.reject);
    return true;
  }
}
