/**
 * The secret of a `process_write`: where it comes from, and whether it may be
 * typed. It is given as `secret`, named as `secret_env` (an environment
 * variable of the server: the person sets the value, the model only names
 * it), or asked of the person with `secret_prompt` (through the client: see
 * {@link CallControl.askSecret}; the model never sees it). On a terminal it
 * is typed only at a password prompt (password_prompt.ts: echo off in
 * canonical mode, or one behind a relay), unless `force`: a password typed
 * at a shell prompt would be shown and run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { secretOf } from "./secret_request.ts";
 *
 * const prompt = { id: 1, spec: { pty: true }, hidesInput: true };
 * assert.equal(await secretOf({ secret: "hunter2" }, {}, prompt), "hunter2");
 * assert.equal(await secretOf({}, {}, prompt), undefined);
 * const shell = { ...prompt, hidesInput: false };
 * await assert.rejects(secretOf({ secret: "hunter2" }, {}, shell), /not at a password prompt/);
 * assert.equal(await secretOf({ secret: "hunter2", force: true }, {}, shell), "hunter2");
 * await assert.rejects(secretOf({ secret_prompt: "Password" }, {}, prompt), /elicitation/);
 * ```
 * @module
 */
import { isMarkedSecret, SECRET_LIST, SECRET_PREFIX, secretValue } from "../../environment.ts";
import { PortalError } from "../../errors.ts";
import { SECRET_MAX_CHARS } from "../../limits.ts";
import type { CallControl, NeedsInput } from "../steps/step.ts";

/** The secret fields of process_write. */
export interface SecretRequest {
  secret?: string;
  secret_env?: string;
  secret_prompt?: string;
  force?: boolean;
}

/** What the check needs to know of the process the secret is for. */
export interface SecretTarget {
  readonly id: number;
  readonly spec: { pty: boolean };
  /** Its terminal hides what is typed now (echo off in canonical mode). */
  readonly hidesInput: boolean;
}

/** Whether `request` sends a secret. */
export function hasSecret(request: SecretRequest): boolean {
  return request.secret !== undefined || request.secret_env !== undefined ||
    request.secret_prompt !== undefined;
}

/**
 * The secret `request` asks to type into `target`, or undefined for none, or
 * {@link NeedsInput} when the person is asked by the call's reply. Throws a {@link PortalError} (that never quotes a secret) when it cannot
 * be had, or may not be typed there now.
 */
export async function secretOf(
  request: SecretRequest,
  control: CallControl,
  target: SecretTarget,
  env?: Record<string, string>,
): Promise<string | undefined | NeedsInput> {
  const { secret, secret_env, secret_prompt } = request;
  const given = [secret, secret_env, secret_prompt].filter((s) => s !== undefined).length;
  if (given === 0) return undefined;
  if (given > 1) {
    throw new PortalError("Give only one of secret, secret_env and secret_prompt.");
  }
  checkPrompt(request, target);
  let value: string;
  if (secret_env !== undefined) value = fromEnv(secret_env, env);
  else if (secret_prompt !== undefined) {
    if (control.askSecret === undefined) {
      throw new PortalError(
        "secret_prompt needs an MCP client that can ask the person (elicitation), and this one " +
          "cannot. Use secret_env instead: the person sets an environment variable for the " +
          "server, and you give its name.",
        "unsupported",
      );
    }
    const answer = await control.askSecret(secret_prompt);
    if ("asking" in answer) return { needsInput: { secret: secret_prompt } };
    value = answer.secret;
    // The person may have taken a while: the prompt may be gone.
    checkPrompt(request, target);
  } else value = secret!;
  if (value === "") throw new PortalError("The secret is empty: nothing was typed.");
  if (value.length > SECRET_MAX_CHARS) {
    throw new PortalError(
      `The secret is longer than ${SECRET_MAX_CHARS} characters: nothing was typed.`,
      "limit",
      { limit: "SECRET_MAX_CHARS", max: SECRET_MAX_CHARS },
    );
  }
  return value;
}

/** Refuses to type a secret where the terminal shows what is typed, unless forced. */
function checkPrompt(request: SecretRequest, target: SecretTarget): void {
  if (!target.spec.pty || target.hidesInput || request.force) return;
  throw new PortalError(
    `Process ${target.id}'s terminal is not at a password prompt (echo is on, or the program ` +
      "reads keys itself and its last line asks for no password: a shell, a full-screen " +
      "program, a relay such as ssh at a shell prompt; on Windows it cannot be told), so the " +
      "secret could be shown or run. Nothing was typed. Wait until the program asks for it " +
      "(state waiting_for_secret), or pass force: true if it must go there.",
    "conflict",
    { id: target.id },
  );
}

/**
 * The value of the client's environment variable `name` (by default the
 * server's own), which the person must have marked secret. The name is never
 * quoted: a model that passed the value by mistake must not see it echoed.
 */
function fromEnv(name: string, env?: Record<string, string>): string {
  if (!isMarkedSecret(name, env)) {
    throw new PortalError(
      "secret_env may name only a variable the person marked secret for the server: one " +
        `whose name starts with ${SECRET_PREFIX}, or one listed in ${SECRET_LIST} (names, ` +
        "comma-separated). Ask the person to mark it where the server is configured (the env " +
        "of its MCP client entry) and to restart it, or use secret_prompt.",
    );
  }
  const value = env ? env[name] : secretValue(name);
  if (value) return value;
  throw new PortalError(
    "The server has no environment variable of the name given as secret_env (or it is " +
      "empty). Ask the person to set it where the server is configured (the env of its MCP " +
      "client entry) and to restart it, or use secret_prompt.",
  );
}
