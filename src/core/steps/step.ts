/**
 * One step of a conversation with a program, as the waiting calls
 * (process_write, process_read_new, process_start) end it: wait as asked
 * (wait.ts), then reply with the program's state, why the wait ended, and
 * the new output as one text sized for a model: at most `max_chars` (head
 * and tail kept), or the rendered screen while a full-screen program shows
 * the alternate buffer. The output returned counts as read:
 * `process_read_new` does not return it again.
 *
 * A step is checked and resolved ({@link prepareStep}) before anything is
 * sent, so a bad pattern sends nothing; then {@link runStep} computes each
 * part of the reply once: the state where the wait ended, the modes once,
 * the text in one read of the records.
 *
 * @module
 */
import { PortalError } from "../../errors.ts";
import { QUIET_MS, STEP_MAX_CHARS, WAIT_MS } from "../../limits.ts";
import type { ExitInfo, OutputSource } from "../../terminal/terminal.ts";
import type {
  ProcessState,
  ScreenSnapshot,
  ShellCommand,
  StepReply,
  WaitRequest,
} from "../model/schema.ts";
import type { TerminalModes } from "../screen/screen.ts";
import { Pattern } from "../pattern/pattern.ts";
import { type Waitable, waitForProgram, type WaitOutcome } from "./wait.ts";
import { leaveOutEcho } from "../output/echo.ts";
import { compactRows } from "../output/screen_rows.ts";

/**
 * What asking the person for a secret gives: the secret, or `asking` when
 * this call can only put the question (the client asks its person, and a
 * later call brings the answer).
 */
export type Answer = { secret: string } | { asking: true };

/**
 * A call's outcome when the person must answer first: nothing was done, and
 * the call replies with the question (the secret's label) instead.
 */
export type NeedsInput = { needsInput: { secret: string } };

/** Whether a call's outcome is a question for the person ({@link NeedsInput}). */
export function needsInput(outcome: unknown): outcome is NeedsInput {
  return typeof outcome === "object" && outcome !== null && "needsInput" in outcome;
}

/**
 * How the MCP layer steers a long call: cancellation, progress for the
 * client, and asking the person (never the model) for a secret, where the
 * client can ask (`secret_prompt`).
 */
export interface CallControl {
  signal?: AbortSignal;
  /** Each second of a wait; `id`: the process waited on (a start's, once it has one). */
  onProgress?: (
    progress: { id: number; elapsedMs: number; totalMs: number; state: ProcessState },
  ) => void;
  askSecret?: (label: string) => Promise<Answer>;
}

/** A waiting call's request: the wait, and the cap on its output. */
export type StepRequest = WaitRequest & { max_chars?: number };

/** What the call itself decides about its step. */
export interface StepKind {
  /** `wait` when the request gives none. */
  defaultWait: "ready" | "none";
  /** The output the step replies with (and `expect` may match). */
  sources: OutputSource[];
  /**
   * The output `expect` may match: only what arrives from now on (`"new"`,
   * after a write), or the unread output too (`"unread"`: a read, a start).
   */
  expectIn: "new" | "unread";
}

/** A step with every default applied and its pattern compiled. */
export interface Step extends Omit<StepKind, "defaultWait"> {
  wait: "ready" | "exit" | "none";
  expect: Pattern | undefined;
  waitMs: number;
  quietMs: number;
  maxChars: number;
}

/** What a step runs on: one program (a ManagedProcess, process/managed_process.ts). */
export interface Steppable extends Waitable {
  readonly id: number;
  readonly exit: ExitInfo | null;
  state(quietMs: number): ProcessState;
  /** The shell's commands finished since last asked (shell/tracker.ts). */
  takeFinishedCommands(): ShellCommand[];
  /** The screen's input modes (PTY), else null. */
  modes(): Promise<TerminalModes> | null;
  screen(options: Record<never, never>): Promise<ScreenSnapshot>;
  /** Its unread output (process/output.ts). */
  output: {
    readNewText(
      sources: OutputSource[],
      maxChars: number,
    ): { text: string; omitted: number; dropped: number };
    skipNew(sources: OutputSource[]): void;
    peekNew(sources: OutputSource[], chars: number): string;
  };
}

/** How much earlier unread output `expect` may match (process_read_new, process_start). */
const EXPECT_SEEN_CHARS = 64 * 1024;

/**
 * Checks `request` (throws on a bad `expect`, or on a wait over {@link WAIT_MS}.max that nobody
 * hears progress from: see {@link WAIT_MS}) and applies the defaults, before anything is sent.
 */
export function prepareStep(
  request: StepRequest,
  kind: StepKind,
  control: CallControl = {},
): Step {
  const wait = request.wait ?? kind.defaultWait;
  const waitMs = request.wait_ms ?? WAIT_MS.default;
  if (waitMs > WAIT_MS.max && control.onProgress === undefined) {
    throw new PortalError(
      `wait_ms ${waitMs} is over ${WAIT_MS.max}, the longest wait of a call without a ` +
        "progressToken: a client that hears nothing from a call for minutes gives up on it. " +
        `Wait at most ${WAIT_MS.max} ms and, while the reply says state "running", call ` +
        'process_read_new with wait: "ready" (or "exit") to wait on, each call where the last ' +
        `ended; a client that sends a progressToken (and resets its timeout on progress) may ` +
        `wait up to ${WAIT_MS.withProgress} ms (24 h) in one call.`,
    );
  }
  return {
    wait,
    expect: request.expect === undefined ? undefined : Pattern.compile(request.expect, "expect"),
    waitMs,
    quietMs: request.quiet_ms ?? QUIET_MS.default,
    maxChars: request.max_chars ?? STEP_MAX_CHARS,
    sources: kind.sources,
    expectIn: kind.expectIn,
  };
}

/**
 * What typing a write's input already did (pacing.ts): the output that came
 * meanwhile, which `expect` may match, and the time it took of the bound.
 */
export interface Typing {
  seen: string;
  spentMs: number;
  /** The lines typed as the terminal echoes them (PTY), to leave their echo out (echo.ts). */
  echo?: string[];
}

const NOT_TYPED: Typing = { seen: "", spentMs: 0 };

/** Waits as `step` says (after `typing`, for a write) and builds the reply. */
export async function runStep(
  process: Steppable,
  step: Step,
  control: CallControl,
  typing: Typing = NOT_TYPED,
): Promise<StepReply> {
  if (step.wait === "none") return { state: process.state(step.quietMs), reason: "none" };
  const outcome = await wait(process, step, control, typing);
  const reply: StepReply = { state: outcome.state, reason: outcome.reason };
  if (outcome.match) reply.match = outcome.match;
  Object.assign(reply, await output(process, step, typing.echo ?? []));
  const commands = process.takeFinishedCommands();
  if (commands.length > 0) reply.command = commands.at(-1);
  if (commands.length > 1) reply.commands = commands;
  if (!process.running) {
    reply.exit_code = process.exit?.code ?? null;
    reply.exit_signal = process.exit?.signal ?? null;
  }
  return reply;
}

function wait(
  process: Steppable,
  step: Step,
  control: CallControl,
  typing: Typing,
): Promise<WaitOutcome> {
  const { onProgress } = control;
  const { seen, spentMs } = typing;
  return waitForProgram(process, {
    until: step.wait === "exit" ? "exit" : "ready",
    expect: step.expect,
    seen: step.expectIn === "new" ? seen : process.output.peekNew(step.sources, EXPECT_SEEN_CHARS),
    waitMs: Math.max(0, step.waitMs - spentMs),
    quietMs: step.quietMs,
    signal: control.signal,
    onProgress: onProgress &&
      ((elapsedMs) =>
        onProgress({
          id: process.id,
          elapsedMs: elapsedMs + Math.round(spentMs),
          totalMs: step.waitMs,
          state: process.state(step.quietMs),
        })),
  });
}

/** The output part of a reply: the rendered screen of a full-screen program, else the text. */
type StepOutput = Pick<
  StepReply,
  | "output"
  | "truncated"
  | "omitted_chars"
  | "dropped_bytes"
  | "cursor"
  | "omitted_rows"
  | "echo_chars"
>;

async function output(process: Steppable, step: Step, echo: string[]): Promise<StepOutput> {
  const modes = await process.modes();
  return modes?.alternateBuffer
    ? await screenOutput(process, step)
    : textOutput(process, step, echo);
}

/** A full-screen program's stream is cursor moves and fragments: the screen is the answer. */
async function screenOutput(process: Steppable, step: Step): Promise<StepOutput> {
  process.output.skipNew(step.sources);
  const screen = await process.screen({});
  const { lines, omitted } = compactRows(screen.lines);
  const text = lines.join("\n");
  const result: StepOutput = { output: text.slice(0, step.maxChars), cursor: screen.cursor };
  if (omitted) result.omitted_rows = omitted;
  if (text.length > step.maxChars) {
    result.truncated = true;
    result.omitted_chars = text.length - step.maxChars;
  }
  return result;
}

/** The new output as drawn (drawn_text.ts), without the echo of what was typed (echo.ts). */
function textOutput(process: Steppable, step: Step, echo: string[]): StepOutput {
  const { text, omitted, dropped } = process.output.readNewText(step.sources, step.maxChars);
  const shown = leaveOutEcho(text, echo);
  const result: StepOutput = { output: shown.text };
  if (shown.chars > 0) result.echo_chars = shown.chars;
  if (omitted > 0) {
    result.truncated = true;
    result.omitted_chars = omitted;
  }
  if (dropped > 0) result.dropped_bytes = dropped;
  return result;
}
