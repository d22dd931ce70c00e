/**
 * Input for a program behind a terminal that takes only what fits (a
 * nonblocking PTY master, a ConPTY input pipe in `PIPE_NOWAIT` mode): what
 * the sink takes is written at once, the rest waits in order, bounded by
 * `INPUT_QUEUE_LIMIT`, until the owner flushes it when there is room again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InputQueue } from "./input_queue.ts";
 *
 * let room = 2;
 * const taken: number[] = [];
 * const queue = new InputQueue((chunk) => {
 *   const n = Math.min(room, chunk.length);
 *   taken.push(...chunk.subarray(0, n));
 *   room -= n;
 *   return n;
 * });
 * assert.equal(queue.push(new Uint8Array([1, 2, 3])), "queued");
 * room = 10;
 * assert.equal(queue.flush(), true);
 * assert.deepEqual(taken, [1, 2, 3]);
 * ```
 * @module
 */
import { INPUT_QUEUE_LIMIT } from "../limits.ts";
import { inputQueueFull } from "./terminal.ts";

/** Writes what it can of `chunk` without waiting: the bytes taken, or -1 once the sink is closed. */
export type WriteSome = (chunk: Uint8Array) => number;

/** See the module doc. */
export class InputQueue {
  readonly #writeSome: WriteSome;
  #chunks: Uint8Array[] = [];
  #queued = 0;

  constructor(writeSome: WriteSome) {
    this.#writeSome = writeSome;
  }

  /** Whether bytes are waiting for room. */
  get pending(): boolean {
    return this.#chunks.length > 0;
  }

  /**
   * Writes `data` after what is queued: `"done"` if the sink took all of it,
   * `"queued"` if some waits (flush later), `"closed"` if the sink is gone and
   * nothing was written. Throws the queue-full `PortalError` past the limit.
   */
  push(data: Uint8Array): "done" | "queued" | "closed" {
    if (data.length === 0) return "done";
    if (this.#queued + data.length > INPUT_QUEUE_LIMIT) throw inputQueueFull(this.#queued);
    let rest = data;
    if (this.#chunks.length === 0) {
      const written = this.#writeSome(data);
      if (written < 0) return "closed";
      if (written === data.length) return "done";
      rest = data.subarray(written);
    }
    // A copy: the caller may reuse its buffer once push() returns.
    this.#chunks.push(rest.slice());
    this.#queued += rest.length;
    return "queued";
  }

  /**
   * Writes queued bytes while the sink takes them. True once nothing waits
   * any more (all written, or the sink closed and the rest was dropped).
   */
  flush(): boolean {
    while (this.#chunks.length > 0) {
      const head = this.#chunks[0];
      const written = this.#writeSome(head);
      if (written < 0) {
        this.clear();
        break;
      }
      this.#queued -= written;
      if (written < head.length) {
        this.#chunks[0] = head.subarray(written);
        return false;
      }
      this.#chunks.shift();
    }
    return true;
  }

  /** Drops everything queued (the program is gone). */
  clear(): void {
    this.#chunks = [];
    this.#queued = 0;
  }
}
