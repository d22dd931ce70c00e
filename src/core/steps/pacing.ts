/**
 * A person's pace for content of several lines: each next line once the
 * program waits for input again, as a person reads the prompt before typing
 * on. So a line is never typed ahead into a program that is busy, that
 * flushes its input or turns echo off and on, or that reads a line's keys
 * and the next one's as one chunk, and its echo comes after its prompt, as a
 * person sees it. Between two lines this waits (`until: "read"`, wait.ts)
 * within the step's bound; where the kernel cannot tell (a relay like ssh,
 * no /proc), or once the bound or the program is gone, the rest is typed at
 * once. The output seen meanwhile is kept for the step's `expect`, and the
 * time spent comes off the step's bound.
 *
 * @module
 */
import type { CallControl, Step, Typing } from "./step.ts";
import { type Waitable, waitForProgram } from "./wait.ts";

/** The pace of one write step. */
export class Pacing {
  readonly #process: Waitable;
  readonly #step: Step;
  readonly #control: CallControl;
  readonly #started = performance.now();
  #seen = "";
  #stopListening: (() => void) | null;

  constructor(process: Waitable, step: Step, control: CallControl) {
    this.#process = process;
    this.#step = step;
    this.#control = control;
    this.#stopListening = process.listen((chunk) => this.#seen += chunk ?? "");
  }

  /** Waits until the next line may be typed; false: type the rest at once. */
  readonly next = async (): Promise<boolean> => {
    const left = this.#step.waitMs - (performance.now() - this.#started);
    if (left <= 0 || !this.#process.running) return false;
    const outcome = await waitForProgram(this.#process, {
      until: "read",
      waitMs: left,
      quietMs: this.#step.quietMs,
      signal: this.#control.signal,
    });
    return outcome.reason === "ready";
  };

  /** Ends the typing: the output seen meanwhile and the time it took, for the step. */
  finish(): Typing {
    this.#stopListening?.();
    this.#stopListening = null;
    return { seen: this.#seen, spentMs: performance.now() - this.#started };
  }
}
