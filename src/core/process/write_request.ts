/**
 * What process_write may send, and the refusals that come before anything
 * is sent: a write with nothing in it, `integrate` mixed with other input,
 * and any write while a person holds the keyboard.
 *
 * @module
 */
import { PortalError } from "../../errors.ts";
import { hasSecret, type SecretRequest } from "../input/secret_request.ts";
import type { StepRequest } from "../steps/step.ts";

/**
 * What process_write sends: text (typed, or pasted), a secret, named keys,
 * then maybe the end of input; or, alone, Portal's shell integration line
 * (`integrate`).
 */
export interface WriteRequest extends StepRequest, SecretRequest {
  content?: string;
  keys?: string[];
  paste?: boolean;
  eof?: boolean;
  integrate?: boolean;
}

/** Throws unless `request` sends something: input, or `integrate` alone. */
export function checkWriteRequest(request: WriteRequest): void {
  const { content = "", keys = [], eof = false, integrate = false } = request;
  const typing = content !== "" || keys.length > 0 || eof || hasSecret(request);
  if (integrate && typing) {
    throw new PortalError(
      "integrate types Portal's shell integration line alone: send it in a process_write of " +
        "its own, then your commands in the next ones.",
    );
  }
  if (!typing && !integrate) {
    throw new PortalError(
      "Nothing to send: give content (text), keys (key names) or eof. To wait for output " +
        "without sending anything, call process_read_new with wait.",
    );
  }
}

/** The refusal of a write to process `id` while a person types into it on the watch page. */
export function personIsTyping(id: number): PortalError {
  return new PortalError(
    `A person is typing into process ${id}: they took over on the watch page ` +
      "(process_watch), so process_write is refused until they press Give back or close " +
      'the page. Meanwhile process_read_new with wait: "ready" follows what they do, and ' +
      'process_inspect shows controlled_by: "agent" again once you may write.',
    "conflict",
    { id },
  );
}
