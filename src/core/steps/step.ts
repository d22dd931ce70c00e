/**
 * One step of a conversation with a program, as the waiting calls
 * (process_write, process_read_new, process_start) end it: wait as asked
 * (src/core/wait.ts), then reply with the program's state, why the wait
 * ended, and the new output as one text sized for a model: at most
 * `max_chars` (head and tail kept), or the rendered screen while a
 * full-screen program shows the alternate buffer. The output returned counts
 * as read: `process_read_new` does not return it again.
 *
 * @module
 */
import { PortalError, quote } from "../../errors.ts";
import { QUIET_MS, STEP_MAX_CHARS, WAIT_MS } from "../../limits.ts";
import type { OutputSource } from "../../terminal/terminal.ts";
import type { ManagedProcess } from "../process/managed_process.ts";
import type { ProcessState, StepReply, WaitRequest } from "../model/schema.ts";
import { waitForProgram } from "./wait.ts";

/**
 * How the MCP layer steers a long call: cancellation, progress for the
 * client, and asking the person (never the model) for a secret, where the
 * client can ask (`secret_prompt`).
 */
export interface CallControl {
  signal?: AbortSignal;
  onProgress?: (progress: { elapsedMs: number; totalMs: number; state: ProcessState }) => void;
  askSecret?: (label: string) => Promise<string>;
}

/** A waiting call's request: the wait, and the cap on its output. */
export type StepRequest = WaitRequest & { max_chars?: number };

/** How much earlier unread output `expect` may match (process_read_new, process_start). */
const EXPECT_SEEN_CHARS = 64 * 1024;

/** `source` compiled as a JavaScript regex (m flag), or a tool error naming `argument`. */
export function compileRegex(source: string, argument: string): RegExp {
  try {
    return new RegExp(source, "m");
  } catch (error) {
    // V8 quotes the whole pattern ("Invalid regular expression: /…/m: Unterminated group").
    const reason = (error as Error).message.split(/\/m: /).at(-1);
    throw new PortalError(
      `${argument} ${quote(source)} is not a valid JavaScript regular expression: ${reason}.`,
    );
  }
}

/** Checks a step request before anything is sent, so a bad pattern sends nothing. */
export function checkStep(request: StepRequest): RegExp | undefined {
  return request.expect === undefined ? undefined : compileRegex(request.expect, "expect");
}

/**
 * Waits as `request` says and builds the reply. `fresh` says which output
 * `expect` may match: only what arrives from now on (after a write), or the
 * unread output too (a read, a start).
 */
export async function runStep(
  process: ManagedProcess,
  request: StepRequest,
  control: CallControl,
  options: { sources: OutputSource[]; defaultWait: "ready" | "none"; fresh: boolean },
): Promise<StepReply> {
  const wait = request.wait ?? options.defaultWait;
  const quietMs = request.quiet_ms ?? QUIET_MS.default;
  const expect = checkStep(request);
  if (wait === "none") return { state: process.state(quietMs), reason: "none" };
  const waitMs = request.wait_ms ?? WAIT_MS.default;
  const { onProgress } = control;
  const outcome = await waitForProgram(process, {
    until: wait,
    expect,
    seen: options.fresh ? "" : process.log.peekUnread(options.sources, EXPECT_SEEN_CHARS),
    waitMs,
    quietMs,
    signal: control.signal,
    onProgress: onProgress &&
      ((elapsedMs) => onProgress({ elapsedMs, totalMs: waitMs, state: process.state(quietMs) })),
  });
  const reply: StepReply = { state: process.state(quietMs), reason: outcome.reason };
  if (outcome.match) reply.match = outcome.match;
  const maxChars = request.max_chars ?? STEP_MAX_CHARS;
  const modes = await process.modes();
  if (modes?.alternateBuffer) {
    // A full-screen program's stream is cursor moves and fragments: the screen is the answer.
    process.log.skipUnread(options.sources);
    const screen = await process.screen({});
    const text = screen.lines.join("\n");
    reply.output = text.slice(0, maxChars);
    reply.cursor = screen.cursor;
    if (text.length > maxChars) {
      reply.truncated = true;
      reply.omitted_chars = text.length - maxChars;
    }
  } else {
    const { text, omitted, dropped } = process.log.readText(options.sources, maxChars);
    reply.output = text;
    if (omitted > 0) {
      reply.truncated = true;
      reply.omitted_chars = omitted;
    }
    if (dropped > 0) reply.dropped_bytes = dropped;
  }
  if (!process.running) {
    reply.exit_code = process.exit?.code ?? null;
    reply.exit_signal = process.exit?.signal ?? null;
  }
  return reply;
}
