/**
 * The secrets of one process, and how they are kept out of its records: a
 * secret is never stored, and its literal value is replaced by
 * {@link REDACTED} in every record made after it became known (so in every
 * reply, screen and file that comes from the records).
 *
 * - **Input.** What is typed as a secret (`process_write`'s `secret`, or
 *   anything typed at a password prompt, by the agent or a person: see
 *   password_prompt.ts) is recorded as one {@link REDACTED} per entry, line
 *   ends kept: the marker comes with the entry's first key, and the entry
 *   ends at a line end (Enter), a Ctrl+C, or once typing is no longer
 *   secret (the prompt went away). Neither its length nor its rhythm shows:
 *   the keys after the first record nothing. A line typed at a password
 *   prompt becomes a secret of the output once it ends: nothing echoes it
 *   before, and a secret typed one key at a time is then one secret, not
 *   one per key.
 * - **Output.** Each secret's bytes are replaced wherever they occur. A chunk
 *   that ends with the start of a secret holds that start back until the
 *   next chunk tells (a secret split across two chunks is still caught), or
 *   until someone reads ({@link release}).
 *
 * Secrets are compared as UTF-8 bytes, line by line (a multi-line secret is
 * one secret per line), exactly: one that a program prints transformed
 * (escaped, coloured mid-word, re-encoded) is not recognised.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Secrets } from "./secrets.ts";
 *
 * const secrets = new Secrets();
 * const text = (b: Uint8Array) => new TextDecoder().decode(b);
 * const bytes = (s: string) => new TextEncoder().encode(s);
 * assert.equal(secrets.typed("hunter2\r", true), "[secret]\r");
 * // A person's keys, one at a time: one marker for the entry.
 * assert.deepEqual(["o", "k", "\r"].map((key) => secrets.typed(key, true)), ["[secret]", "", "\r"]);
 * assert.equal(text(secrets.redact("stdout", bytes("pw is hunt"))), "pw is ");
 * assert.equal(text(secrets.redact("stdout", bytes("er2!\n"))), "[secret]!\n");
 * assert.equal(text(secrets.redact("stdout", bytes("a hun"))), "a ");
 * assert.equal(text(secrets.release("stdout")), "hun");
 * assert.equal(text(secrets.scrub(bytes("echo hunter2"))), "echo [secret]");
 * ```
 * @module
 */
import { concatBytes } from "../../bytes.ts";

/** What a secret is replaced by in output and input records. */
export const REDACTED = "[secret]";

const MARKER = new TextEncoder().encode(REDACTED);
const EMPTY = new Uint8Array(0);
/**
 * Bytes as a string of one character per byte (a bijection), so the engine's
 * own substring search finds secrets: a byte loop crawls where a secret's
 * first byte is common in the output.
 */
const BYTES = new TextDecoder("latin1");
/** A character that ends a line in the line discipline: newline, carriage return, Ctrl+D. */
// deno-lint-ignore no-control-regex
const LINE_END = /[\n\r\x04]/;
/** The line discipline's erase (DEL, Backspace) and kill (Ctrl+U) characters. */
const ERASE = new Set(["\x7f", "\b"]);
const KILL = "\x15";
/** Ctrl+C: the line discipline (or the far side of a relay) drops the line and interrupts. */
const INTERRUPT = "\x03";

/** One output stream's bytes not yet matched to the end. */
interface StreamState {
  /** The last bytes seen (at most one less than the longest secret). */
  tail: Uint8Array;
  /** How many of them, at its end, are held back: not stored yet. */
  held: number;
}

/** The secrets of one process, and the filters that keep them out of its records. */
export class Secrets {
  /** Each secret's UTF-8 bytes as a {@link BYTES} string, longest first (the longest wins). */
  #values: string[] = [];
  readonly #streams = new Map<string, StreamState>();
  /** The line being typed at a password prompt, as the line discipline edits it. */
  #line = "";
  /** A secret entry is open: its marker is recorded, its line has not ended. */
  #entry = false;

  /** Whether there is anything to keep out. */
  get active(): boolean {
    return this.#values.length > 0;
  }

  /** Makes each non-empty line of `value` a secret. */
  add(value: string): void {
    for (const line of value.split(LINE_END)) {
      const bytes = BYTES.decode(new TextEncoder().encode(line));
      if (bytes === "" || this.#values.includes(bytes)) continue;
      this.#values.push(bytes);
      this.#values.sort((a, b) => b.length - a.length);
    }
  }

  /**
   * What the `stdin` record says for `text` just typed: itself, or when it is
   * `secret`, its line ends and Ctrl+Cs, and {@link REDACTED} where a secret
   * entry begins (see the module doc); empty for keys inside an entry.
   */
  typed(text: string, secret: boolean): string {
    if (!secret) {
      this.#endLine();
      return text;
    }
    let record = "";
    for (const char of text) {
      if (LINE_END.test(char)) {
        record += char;
        this.#endLine();
      } else if (char === INTERRUPT) {
        record += char;
        this.#line = "";
        this.#entry = false;
      } else {
        if (!this.#entry) record += REDACTED;
        this.#entry = true;
        if (ERASE.has(char)) this.#line = [...this.#line].slice(0, -1).join("");
        else if (char === KILL) this.#line = "";
        else this.#line += char;
      }
    }
    return record;
  }

  /**
   * The bytes of output `chunk` of `stream` to store now, every secret
   * replaced; a tail that may begin a secret waits for the next chunk.
   */
  redact(stream: string, chunk: Uint8Array): Uint8Array {
    if (!this.active) return chunk;
    const state = this.#streams.get(stream) ?? { tail: EMPTY, held: 0 };
    const window = concatBytes([state.tail, chunk]);
    // The first byte not stored yet; a match may begin before it, in what a read released.
    const from = state.tail.length - state.held;
    const matches = this.#matches(window).filter(([, end]) => end > from);
    const lastEnd = matches.at(-1)?.[1] ?? 0;
    const hold = Math.max(from, this.#prefixStart(window, lastEnd));
    const longest = this.#values[0].length;
    state.tail = window.slice(Math.max(0, window.length - (longest - 1)));
    state.held = window.length - hold;
    this.#streams.set(stream, state);
    return replaced(window, from, hold, matches);
  }

  /** What `stream` holds back, as it is, and it is no longer held: a reader must see it. */
  release(stream: string): Uint8Array {
    const held = this.held(stream);
    const state = this.#streams.get(stream);
    if (state !== undefined) state.held = 0;
    return held;
  }

  /** What `stream` holds back now. */
  held(stream: string): Uint8Array {
    const state = this.#streams.get(stream);
    return state === undefined ? EMPTY : state.tail.subarray(state.tail.length - state.held);
  }

  /** `bytes` with every secret replaced, nothing held (an input record is whole). */
  scrub(bytes: Uint8Array): Uint8Array {
    if (!this.active) return bytes;
    return replaced(bytes, 0, bytes.length, this.#matches(bytes));
  }

  /** The line typed at a password prompt is complete: it is a secret from now on. */
  #endLine(): void {
    if (this.#line !== "") this.add(this.#line);
    this.#line = "";
    this.#entry = false;
  }

  /** Where secrets occur in `bytes`, left to right, never overlapping: [start, end) pairs. */
  #matches(bytes: Uint8Array): [number, number][] {
    const text = BYTES.decode(bytes);
    const found: [number, number][] = [];
    for (const value of this.#values) {
      for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) {
        found.push([at, at + value.length]);
      }
    }
    // Earliest first, and at one place the longest (values are sorted longest first).
    found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    const kept: [number, number][] = [];
    for (const match of found) {
      if (kept.length === 0 || match[0] >= kept[kept.length - 1][1]) kept.push(match);
    }
    return kept;
  }

  /**
   * The earliest position at or after `from` where the rest of `bytes` is the
   * start of a secret (it may go on in the next chunk); `bytes.length` if none.
   */
  #prefixStart(bytes: Uint8Array, from: number): number {
    const start = Math.max(from, bytes.length - this.#values[0].length + 1);
    const end = BYTES.decode(bytes.subarray(start));
    for (let at = 0; at < end.length; at++) {
      const rest = end.slice(at);
      if (this.#values.some((v) => v.length > rest.length && v.startsWith(rest))) {
        return start + at;
      }
    }
    return bytes.length;
  }
}

/** `bytes[from, to)` with each of `matches` (clipped to `from`) replaced by the marker. */
function replaced(
  bytes: Uint8Array,
  from: number,
  to: number,
  matches: [number, number][],
): Uint8Array {
  if (matches.length === 0) return bytes.subarray(from, to);
  const parts: Uint8Array[] = [];
  let at = from;
  for (const [start, end] of matches) {
    parts.push(bytes.subarray(at, Math.max(at, start)), MARKER);
    at = end;
  }
  parts.push(bytes.subarray(at, Math.max(at, to)));
  return concatBytes(parts);
}
