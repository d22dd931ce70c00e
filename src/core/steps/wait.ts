/**
 * Waiting for a program: until it is ready for input again, until it exits,
 * or until its output matches a pattern, within a bound. "Ready" comes from
 * what the kernel says (see src/terminal/posix/input_state.ts): the program
 * is blocked reading its terminal or stdin, having taken what was written to
 * it. Where the kernel showed that nothing written to it waits unread
 * (`InputState.taken`), everything it wrote before it blocked is in the OS
 * already, and one last read takes it in: the wait ends then. Elsewhere a
 * short settle ({@link SETTLE_MS} without new output while it stays so) makes
 * sure the reply holds all the program wrote before it blocked.
 * Where the OS cannot tell (no /proc; relays like ssh), a shell's
 * integration marks decide when they say something (shell/tracker.ts: a
 * prompt drawn after the input is ready, a command it started is not);
 * else `quiet_ms` of silence after a prompt-like last line counts as ready.
 * A per-process `prompt` regex, where given, decides instead: ready when it
 * matches the last line, whatever the kernel says; at once where the kernel
 * shows the program reading with nothing unread, else after the settle, or
 * after {@link DRAWING_MS} of silence where it shows the program busy: it
 * may be drawing still (node draws its prompt in four writes, the last a
 * cursor move that changes no text but comes after input typed meanwhile).
 * Between two typed lines (`until: "read"`) the same counts, but where the
 * kernel cannot tell there is no silence to wait for: the next line goes at
 * once.
 *
 * No fixed sleeps: the kernel is asked right after output arrives and then
 * at a cadence that starts a quarter millisecond after the input (which is
 * on its way to the program before that) and backs off to 50 ms
 * the longer the program stays busy (each ask costs about 0.1 ms), so a REPL
 * that answers in 1 ms is returned within a few ms, and a long job costs
 * little.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { looksLikePrompt } from "./wait.ts";
 *
 * assert.ok(looksLikePrompt("user@host:~$ "));
 * assert.ok(looksLikePrompt("Password: "));
 * assert.ok(!looksLikePrompt("compiling 3/10"));
 * ```
 * @module
 */
import { PROGRESS_INTERVAL_MS } from "../../limits.ts";
import { sleep } from "../../platform.ts";
import type { InputState } from "../../terminal/terminal.ts";
import type { ProcessState, WaitMatch, WaitReason } from "../model/schema.ts";
import { ExpectScan } from "./expect_scan.ts";
import type { Pattern } from "../pattern/pattern.ts";
import type { MarkReadiness } from "../shell/tracker.ts";

/**
 * Where the kernel cannot show that the input was taken, output must stay
 * quiet this long, with the program still reading, before a wait ends.
 */
export const SETTLE_MS = 2;
/** A prompt matched while the kernel shows its program busy counts after this much silence. */
export const DRAWING_MS = 300;
/** Why a wait's sleep ends early: new output, or the call's own abort. */
const WOKEN = "woken";
/** Bounds of the cadence at which the kernel is asked while the program is busy. */
const MIN_CHECK_MS = 0.25;
const MAX_CHECK_MS = 50;

/** What a wait watches: one program (a ManagedProcess). */
export interface Waitable {
  readonly running: boolean;
  inputState(): InputState;
  /** Hands output the OS already holds to the listeners now (PTY); false while some is on its way. */
  collectOutput(): boolean;
  /** `performance.now()` of the last output, and of the last input sent. */
  readonly lastOutputAt: number;
  readonly lastInputAt: number;
  /** The output after its last newline. */
  readonly lastLine: string;
  /** Whether what is typed now is a secret (input/password_prompt.ts: here or behind a relay). */
  readonly hidesInput: boolean;
  /** The per-process prompt given at start, if any. */
  readonly prompt: Pattern | null;
  /** What a shell's integration marks say about the last input (shell/tracker.ts). */
  shellReadiness(): MarkReadiness;
  /** Calls `listener` with new output, and with null once the program ended; returns an unsubscribe. */
  listen(listener: (text: string | null) => void): () => void;
}

/** What to wait for, and for how long. */
export interface WaitOptions {
  /** `read`: ready for the next typed line (see the module doc). */
  until: "ready" | "exit" | "read";
  expect?: Pattern;
  /** Output already there that `expect` may match (read_new and start: the unread output). */
  seen?: string;
  waitMs: number;
  quietMs: number;
  /** Aborting ends the wait at once: it rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called every {@link PROGRESS_INTERVAL_MS} while the wait lasts. */
  onProgress?: (elapsedMs: number) => void;
}

/** How a wait ended, and the program's state then (the reply's: asked once). */
export interface WaitOutcome {
  reason: Exclude<WaitReason, "none">;
  state: ProcessState;
  match?: WaitMatch;
}

/** Whether `line` ends like a prompt: `$`, `#`, `%`, `>`, `:`, `?`, `]` or `)`, then spaces. */
export function looksLikePrompt(line: string): boolean {
  return /[$#%>:?\])]\s*$/.test(line);
}

/**
 * What the program is doing now, as `state` reports it, and whether a wait
 * for it to be ready may end: it waits for input or is stopped. A `prompt`
 * given at start decides readiness alone (the kernel misjudges some
 * programs: node's REPL reads keys while a top-level await runs). `exact`:
 * ready, and the kernel shows that the input was taken, so no settle is
 * needed. `drawing`: ready by the prompt, and the kernel shows the program
 * busy. `typing`: ready for the next typed line (`until: "read"`).
 */
export function readiness(
  p: Waitable,
  quietMs: number,
  typing = false,
): { state: ProcessState; ready: boolean; exact: boolean; drawing?: boolean } {
  if (!p.running) return { state: "exited", ready: false, exact: false };
  const input = p.inputState();
  if (input.activity === "stopped") return { state: "stopped", ready: true, exact: false };
  // A prompt counts only once the program answered the last input (not the prompt before it).
  const answered = p.lastOutputAt > p.lastInputAt;
  const prompted = answered && p.prompt !== null && p.prompt.matchesEnd(p.lastLine);
  let waiting = input.activity === "reading" || prompted;
  if (!waiting && input.activity === "unknown") {
    // The kernel cannot tell (a relay, no /proc); a shell's marks can: its prompt is drawn,
    // or the command it started runs on, however long its output pauses.
    const marks = p.shellReadiness();
    waiting = typing || marks === "prompt" ||
      (marks === null && answered && looksLikePrompt(p.lastLine) &&
        performance.now() - p.lastOutputAt >= quietMs);
  }
  // A password prompt behind a relay is one too: the same test that marks what is typed secret.
  const secret = waiting && (input.secret || p.hidesInput);
  const state = !waiting ? "running" : secret ? "waiting_for_secret" : "waiting_for_input";
  // Between typed lines a reader will do: a continuation prompt need not match `prompt`.
  const ready = p.prompt === null || typing ? waiting : prompted;
  // Ready, and reading with nothing unread: the program has answered, and its answer is in the
  // OS. With a prompt, its match says it answered: a program that reads while it works (node's
  // await) has drawn no prompt yet.
  return {
    state,
    ready,
    exact: ready && input.activity === "reading" && input.taken,
    drawing: ready && prompted && !typing && input.activity === "busy",
  };
}

/** Waits as `options` say; see the module doc. */
export async function waitForProgram(p: Waitable, options: WaitOptions): Promise<WaitOutcome> {
  const { expect, quietMs, signal, onProgress } = options;
  const start = performance.now();
  const deadline = start + options.waitMs;
  let nextProgress = start + PROGRESS_INTERVAL_MS;
  const progress = (now: number) => {
    if (onProgress === undefined || now < nextProgress) return;
    onProgress(Math.round(now - start));
    nextProgress += PROGRESS_INTERVAL_MS;
  };
  const scan = expect && new ExpectScan(expect, options.seen ?? "");
  let wake: (() => void) | null = null;
  const nudge = () => wake?.();
  let fresh = false;
  const stopListening = p.listen((chunk) => {
    if (chunk !== null) scan?.add(chunk);
    fresh = true;
    nudge();
  });
  signal?.addEventListener("abort", nudge);
  // Input just sent is still on its way to the program: the first look comes a step of the
  // cadence after it, or as soon as the program answers (a wait long after it looks at once).
  let lastCheck = p.lastInputAt;
  let readySince: number | null = null;
  let rechecked = false;
  try {
    for (;;) {
      signal?.throwIfAborted();
      // The cadence backs off with the time since the last input (or the start).
      const gap = Math.min(
        MAX_CHECK_MS,
        Math.max(MIN_CHECK_MS, (performance.now() - Math.max(start, p.lastInputAt)) / 8),
      );
      // New output hints that the program may be about to read again: ask sooner.
      const due = lastCheck + (fresh ? gap / 4 : gap);
      const checking = options.until !== "exit" &&
        (readySince !== null || performance.now() >= due);
      // Output the OS holds already is taken before the kernel is asked, and expect tested on
      // it: a check that finds the program reading then ends the wait unless more comes.
      if (checking) p.collectOutput();
      const match = scan?.next() ?? null;
      if (match !== null) return { reason: "expect", state: readiness(p, quietMs).state, match };
      if (scan?.pending) {
        // More new output than one search covers: other calls get their turn between searches.
        const now = performance.now();
        if (now >= deadline) return { reason: "timeout", state: readiness(p, quietMs).state };
        progress(now);
        await sleep(0, signal);
        continue;
      }
      if (!p.running) return { reason: "exit", state: "exited" };
      const now = performance.now();
      let nextCheck = options.until === "exit" ? Infinity : due;
      if (checking) {
        lastCheck = now;
        fresh = false;
        const { state, ready, exact, drawing } = readiness(p, quietMs, options.until === "read");
        if (ready) {
          // Output that came meanwhile is taken now; expect is tested on it before the next
          // check can end the wait (at once, where the check is exact; else it restarts the
          // settle). Output still in a pipe holds the wait off until the server has read it.
          const outputAt = p.lastOutputAt;
          const collected = p.collectOutput();
          readySince ??= now;
          const settleMs = exact ? 0 : drawing ? DRAWING_MS : SETTLE_MS;
          const quiet = now - Math.max(readySince, p.lastOutputAt);
          // Nothing came since the check: its state stands.
          if (collected && p.lastOutputAt === outputAt && quiet >= settleMs) {
            return { reason: "ready", state };
          }
          // Once at once; output that keeps coming (a background job) is not looked at in a
          // loop that would hold the server's thread.
          // A program seen drawing is asked again at the cadence: once it reads, it is done.
          const settleLeft = Math.max(MIN_CHECK_MS, settleMs - quiet);
          nextCheck = exact && !rechecked
            ? now
            : now + (drawing ? Math.min(gap, settleLeft) : settleLeft);
          rechecked = exact;
        } else {
          readySince = null;
          nextCheck = now + gap;
        }
      }
      if (now >= deadline) return { reason: "timeout", state: readiness(p, quietMs).state };
      progress(now);
      const until = Math.min(nextCheck, deadline, onProgress ? nextProgress : Infinity);
      // Due at once (an exact check took new output in): test expect on it and look again.
      if (until <= now) continue;
      const woken = new AbortController();
      // With a reason of its own: an abort without one makes a DOMException, stack and all.
      wake = () => woken.abort(WOKEN);
      await sleep(until - performance.now(), woken.signal);
      wake = null;
    }
  } finally {
    stopListening();
    signal?.removeEventListener("abort", nudge);
  }
}
