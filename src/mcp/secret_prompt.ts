/**
 * `secret_prompt` on MCP 2025-11-25 (the `elicitation` {@link Asker}): the
 * person at the client is asked for a secret through an elicitation request,
 * and the answer goes to the program, never to the model.
 *
 * URL mode first, as MCP 2025-11-25 requires for credentials: the client
 * opens a {@link openSecretPage | page of Portal's own} on 127.0.0.1, so the
 * value passes neither the model nor the client; once the page has it, the
 * client is told (`notifications/elicitation/complete`). A client that only
 * declared form mode gets a form: the value then passes through the client
 * application, but not the model (asker.ts chooses the mode). A task's
 * question is tied to its task (`_meta`). The person has
 * {@link SECRET_PROMPT_MS} either way; a decline, the deadline or the call's
 * cancellation (or the task's withdrawal) ends the question, and nothing is
 * typed.
 *
 * @module
 */
import {
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  type ElicitResult,
  type RequestId,
  SdkError,
  SdkErrorCode,
  type Server,
} from "@modelcontextprotocol/server";
import { abortable } from "../async.ts";
import { PortalError } from "../errors.ts";
import { SECRET_PROMPT_MS } from "../limits.ts";
import type { Asker } from "./asker.ts";
import { openSecretPage } from "./secret_page.ts";

/** One question to the person: where it goes, and when it ends. */
interface Question {
  server: Server;
  /** The call that asks: over HTTP, the question travels on its stream. */
  requestId?: RequestId;
  /** The question's `_meta` (a task's: `io.modelcontextprotocol/related-task`). */
  meta?: Record<string, unknown>;
  /** Aborted by the call's cancellation or the deadline. */
  until: AbortSignal;
}

/**
 * The {@link Asker} of a 2025-11-25 call to `server` (`requestId`), or of
 * its task (`meta`: the question's, tying it to the task): an elicitation
 * request that shows Portal's page (`url`) or a form.
 */
export function elicitationAsker(
  server: Server,
  url: boolean,
  on: { requestId?: RequestId; meta?: Record<string, unknown> },
): Asker {
  const ask = url ? askOnPage : askInForm;
  const { requestId, meta } = on;
  return {
    ask: async (label, signal) => {
      const deadline = AbortSignal.timeout(SECRET_PROMPT_MS);
      try {
        const until = AbortSignal.any([signal, deadline]);
        return { secret: await ask({ server, requestId, meta, until }, label) };
      } catch (error) {
        if (signal.aborted || error instanceof PortalError) throw error;
        // The client's message is not passed on: it might quote what the person typed.
        const timedOut = deadline.aborted ||
          error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
        const why = timedOut
          ? `no answer within ${SECRET_PROMPT_MS / 1000} s`
          : "the client reported an error";
        throw new PortalError(
          `The person was asked (secret_prompt), but ${why}; nothing was typed.`,
          "declined",
        );
      }
    },
  };
}

/** URL mode: the person enters the secret on a page of Portal's own. */
async function askOnPage(question: Question, label: string): Promise<string> {
  const page = openSecretPage(label);
  const answered = new AbortController();
  try {
    const elicitationId = crypto.randomUUID();
    const consent = elicit(
      question,
      { mode: "url", elicitationId, ...secretOnPage(label, page.url) },
      AbortSignal.any([question.until, answered.signal]),
    );
    // A client may answer once the page is done with, so the page's answer alone will do.
    const secret = await abortable(
      Promise.race([page.secret, consent.then((result) => (given(result), page.secret))]),
      question.until,
    );
    await question.server.createElicitationCompletionNotifier(elicitationId, {
      relatedRequestId: question.requestId,
    })().catch(() => {/* The client is gone; the call ends anyway. */});
    return secret;
  } finally {
    answered.abort();
    await page.close();
  }
}

/** Form mode: the client shows a form, and passes the answer on. */
async function askInForm(question: Question, label: string): Promise<string> {
  return formSecret(await elicit(question, { mode: "form", ...secretForm(label) }, question.until));
}

/** What a URL-mode question says after its {@link intro}. */
const PAGE_TEXT =
  "Enter it on this page, in a browser on the computer Portal runs on (it is served on " +
  "127.0.0.1 only). From there it is typed into that program: neither the agent nor this " +
  "client sees it, and Portal does not store it.";

/** What a form-mode question says after its {@link intro}. */
const FORM_TEXT =
  "What you enter is typed into that program. The agent does not see it, and Portal does " +
  "not store it.";

/** How every question begins. */
function intro(label: string): string {
  return `A program run by your AI agent through Portal asks for: ${label}\n`;
}

/** The form that asks for a secret labelled `label` (either revision's). */
export function secretForm(label: string) {
  const secret = { type: "string" as const, title: label };
  return {
    message: intro(label) + FORM_TEXT,
    requestedSchema: { type: "object" as const, properties: { secret }, required: ["secret"] },
  };
}

/** The secret a form's answer holds, or a {@link PortalError} saying it was not given. */
export function formSecret(answer: { action: string; content?: Record<string, unknown> }): string {
  given(answer);
  const secret = answer.content?.secret;
  if (typeof secret !== "string") throw notGiven("no text");
  return secret;
}

/** The URL-mode question for a secret labelled `label`, entered at `url`. */
export function secretOnPage(label: string, url: string): { url: string; message: string } {
  return { url, message: intro(label) + PAGE_TEXT };
}

/**
 * Sends the question, and withdraws it (`notifications/cancelled`) if `until`
 * aborts while it is open, and only then: the SDK would also cancel a request
 * already answered.
 */
function elicit(
  question: Question,
  params: ElicitRequestFormParams | ElicitRequestURLParams,
  until: AbortSignal,
): Promise<ElicitResult> {
  const open = new AbortController();
  const withdraw = () => open.abort(until.reason);
  if (until.aborted) withdraw();
  else until.addEventListener("abort", withdraw, { once: true });
  const { meta } = question;
  return question.server.elicitInput(meta ? { ...params, _meta: meta } : params, {
    signal: open.signal,
    timeout: SECRET_PROMPT_MS,
    relatedRequestId: question.requestId,
  }).finally(() => until.removeEventListener("abort", withdraw));
}

/** Throws unless the person accepted. */
function given(result: { action: string }): void {
  if (result.action !== "accept") throw notGiven(result.action);
}

/** The person did not give it: `why` is the client's action, or what was missing. */
export function notGiven(why: string): PortalError {
  return new PortalError(
    `The person did not give the secret (${why}); nothing was typed. Ask them how to go on.`,
    "declined",
  );
}
