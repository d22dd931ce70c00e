/**
 * `secret_prompt` on MCP 2026-07-28 (the `rounds` {@link Asker}), where a
 * server cannot send the client a request: the call answers `resultType: "input_required"` with the
 * question in `inputRequests` and an opaque `requestState`, before anything
 * is typed; the client asks its person and calls again with the answer in
 * `inputResponses`, and that call types it and carries on with the step.
 *
 * URL mode when the request's `_meta` declares it (the person enters the
 * secret on {@link openSecretPage | Portal's own page}, so it passes neither
 * the model nor the client), form mode otherwise (asker.ts chooses). The `requestState` is signed (HMAC, a key made
 * at each start), expires after {@link SECRET_PROMPT_MS}, and names one
 * question the server holds: the same call (the same arguments) may answer
 * it once. A forged or expired one is refused by the SDK (`-32602`), a
 * replayed one or one from another call by a tool error; nothing is typed.
 *
 * @module
 */
import {
  type CallToolResult,
  createRequestStateCodec,
  type InputRequest,
  inputRequired,
  inputResponse,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { abortable } from "../async.ts";
import { PortalError } from "../errors.ts";
import { SECRET_PROMPT_MS } from "../limits.ts";
import type { Asker } from "./asker.ts";
import { openSecretPage, type SecretPage } from "./secret_page.ts";
import { formSecret, notGiven, secretForm, secretOnPage } from "./secret_prompt.ts";

/** What a question's `requestState` carries (signed, not secret). */
interface QuestionState {
  question: string;
}

/** A question asked and not yet answered. */
interface Question {
  /** The call that asked, which alone may answer. */
  call: string;
  page?: SecretPage;
  timer: ReturnType<typeof setTimeout>;
}

/** Questions open at once, at most: past it the oldest is withdrawn (its answer is refused). */
const OPEN_MAX = 256;

const codec = createRequestStateCodec<QuestionState>({
  key: crypto.getRandomValues(new Uint8Array(32)),
  ttlSeconds: SECRET_PROMPT_MS / 1000,
  bind: (ctx) => ctx.mcpReq.method,
});

/** For the server's options: checks each `requestState` before the call runs. */
export const verifyRequestState = codec.verify;

const open = new Map<string, Question>();

/**
 * The {@link Asker} of the 2026-07-28 call `ctx` whose arguments are
 * `args`: a first round says `asking` (the call replies with its
 * {@link Asker.question | question}, on Portal's page if `url`), the round
 * that brings the answer gives the secret.
 */
export function roundsAsker(ctx: ServerContext, args: unknown, url: boolean): Asker {
  const call = JSON.stringify(args);
  return {
    ask: async (_label, signal) => {
      const state = ctx.mcpReq.requestState<QuestionState>();
      if (state === undefined) return { asking: true };
      const question = open.get(state.question);
      if (question === undefined || question.call !== call) {
        throw new PortalError(
          "This answer is to a question already answered, withdrawn, or asked by another call " +
            "(requestState): nothing was typed. Call process_write with secret_prompt again.",
          "conflict",
        );
      }
      open.delete(state.question);
      clearTimeout(question.timer);
      const answer = inputResponse(ctx.mcpReq.inputResponses, "secret");
      return { secret: await secretIn(answer, question.page, { signal }) };
    },
    question: async (label) => {
      if (open.size >= OPEN_MAX) withdraw(open.keys().next().value!);
      const id = crypto.randomUUID();
      const { request: secret, page } = secretQuestion(label, url);
      const timer = setTimeout(() => withdraw(id), SECRET_PROMPT_MS);
      Deno.unrefTimer(timer);
      open.set(id, { call, page, timer });
      const requestState = await codec.mint({ question: id }, ctx);
      return inputRequired({
        inputRequests: { secret },
        requestState,
      }) as unknown as CallToolResult;
    },
  };
}

/** The elicitation that asks for a secret labelled `label`: on a page of its own in URL mode. */
export function secretQuestion(
  label: string,
  url: boolean,
): { request: InputRequest; page?: SecretPage } {
  if (!url) return { request: inputRequired.elicit(secretForm(label)) };
  const page = openSecretPage(label);
  return { request: inputRequired.elicitUrl(secretOnPage(label, page.url)), page };
}

/**
 * The secret `answer` gives to the question {@link secretQuestion} made
 * (from its `page` in URL mode, once the person sent it), or a
 * {@link PortalError} saying it was not given; the page is closed either way.
 */
export async function secretIn(
  answer: ReturnType<typeof inputResponse>,
  page: SecretPage | undefined,
  { signal }: { signal: AbortSignal },
): Promise<string> {
  try {
    if (answer.kind !== "elicit") throw notGiven("no answer");
    if (answer.action !== "accept" || !page) return formSecret(answer);
    return await fromPage(page, signal);
  } finally {
    await page?.close();
  }
}

/** Withdraws question `id`, unanswered: its answer will be refused, its page is closed. */
function withdraw(id: string): void {
  const question = open.get(id);
  if (question === undefined) return;
  open.delete(id);
  clearTimeout(question.timer);
  void question.page?.close();
}

/** The secret from the page, once the person has sent it (the client said they accepted). */
async function fromPage(page: SecretPage, signal: AbortSignal): Promise<string> {
  try {
    return await abortable(
      page.secret,
      AbortSignal.any([signal, AbortSignal.timeout(SECRET_PROMPT_MS)]),
    );
  } catch (error) {
    // The page's promise only resolves: this is the call's end, or the deadline.
    if (signal.aborted) throw error;
    throw new PortalError(
      `The person was asked (secret_prompt), but no answer came on the page within ` +
        `${SECRET_PROMPT_MS / 1000} s; nothing was typed.`,
      "timeout",
    );
  }
}
