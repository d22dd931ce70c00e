/**
 * The terminal of a program that ended under an earlier host: only its
 * records are left (in the database), so everything that would reach the
 * program is refused, and there is nothing to kill.
 *
 * @module
 */
import { PortalError } from "../errors.ts";
import type { InputState, InterruptDelivery, Terminal } from "./terminal.ts";

/** A {@link Terminal} whose program is gone; `pid` was its pid. */
export class RecordedTerminal implements Terminal {
  readonly pid: number;

  constructor(pid: number) {
    this.pid = pid;
  }

  write(): void {
    throw this.#gone();
  }

  endInput(): void {
    throw this.#gone();
  }

  resize(): void {
    throw this.#gone();
  }

  signal(): void {
    throw this.#gone();
  }

  interrupt(): InterruptDelivery {
    throw this.#gone();
  }

  kill(): Promise<void> {
    return Promise.resolve();
  }

  hasLeftovers(): boolean {
    return false;
  }

  inputState(): InputState {
    return { activity: "unknown", secret: false, taken: false };
  }

  lineModes(): null {
    return null;
  }

  collectOutput(): boolean {
    return true;
  }

  #gone(): PortalError {
    return new PortalError(
      "This program ended under an earlier Portal host: only its records are left. Read them " +
        "with process_read or process_read_new, or start it again with process_start.",
      "ended",
    );
  }
}
