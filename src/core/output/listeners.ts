/**
 * Who listens to a process's output as it comes (a wait, for `expect` and to
 * wake on new output): each new chunk as text, and null once the program
 * ended. The records are stored raw and decoded when read; these decoders
 * run only while someone listens.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OutputListeners } from "./listeners.ts";
 *
 * const listeners = new OutputListeners({ dropCR: true });
 * const heard: (string | null)[] = [];
 * const stop = listeners.listen((text) => heard.push(text));
 * const bytes = new TextEncoder().encode("\x1b[1mé\r\n");
 * listeners.hear("stdout", bytes.subarray(0, 5)); // half of "é": nothing yet
 * listeners.hear("stdout", bytes.subarray(5));
 * listeners.end();
 * stop();
 * assert.deepEqual(heard, ["é\n", null]);
 * ```
 * @module
 */
import type { OutputSource } from "../../terminal/terminal.ts";
import { OutputDecoder } from "../text/decoder.ts";

/** The listeners of one process's output. */
export class OutputListeners {
  readonly #dropCR: boolean;
  readonly #listeners = new Set<(text: string | null) => void>();
  #decoders: Record<OutputSource, OutputDecoder> | null = null;

  /** `dropCR`: the output comes through a terminal, whose line ends are `\r\n`. */
  constructor(options: { dropCR: boolean }) {
    this.#dropCR = options.dropCR;
  }

  /** Calls `listener` with each new chunk of output as text, and null at the end; returns an unsubscribe. */
  listen(listener: (text: string | null) => void): () => void {
    this.#listeners.add(listener);
    this.#decoders ??= {
      stdout: new OutputDecoder({ dropCR: this.#dropCR }),
      stderr: new OutputDecoder({ dropCR: this.#dropCR }),
    };
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#decoders = null;
    };
  }

  /** Whether someone listens now: a call that waits on this output. */
  get active(): boolean {
    return this.#listeners.size > 0;
  }

  /** A chunk of output as it is stored. */
  hear(source: OutputSource, bytes: Uint8Array): void {
    if (this.#decoders !== null) this.#tell(this.#decoders[source].decode(bytes));
  }

  /** The program ended: what the decoders still hold, then null. */
  end(): void {
    if (this.#decoders !== null) {
      for (const source of ["stdout", "stderr"] as const) {
        this.#tell(this.#decoders[source].decode());
      }
    }
    for (const listener of this.#listeners) listener(null);
  }

  #tell(text: string): void {
    if (text === "") return;
    for (const listener of this.#listeners) listener(text);
  }
}
