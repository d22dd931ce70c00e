/**
 * Spots, cheaply and on raw bytes, the escape sequences a program sends to ask
 * its terminal something (cursor position, device attributes, a mode, a
 * colour, a setting): the lazy screen must answer those promptly, so they make
 * it catch up at once. A false alarm only costs an early catch-up. Also the
 * sequences that may change the input modes (DEC private modes, resets): until
 * one comes, the modes last parsed still hold. A sequence split between two
 * chunks is found by keeping the tail after the last ESC.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { QueryScanner } from "./terminal_queries.ts";
 *
 * const scan = new QueryScanner();
 * const bytes = (s: string) => new TextEncoder().encode(s);
 * assert.equal(scan.asks(bytes("plain text\x1b[1mbold")), false);
 * assert.equal(scan.asks(bytes("\x1b[6n")), true); // cursor position report
 * assert.equal(scan.asks(bytes("x\x1b[")), false);
 * assert.equal(scan.asks(bytes(">c")), true); // secondary DA, split in two
 * assert.equal(scan.asks(bytes("\x1b]11;?\x07")), true); // background colour
 *
 * const modes = new ModeScanner();
 * assert.equal(modes.asks(bytes("\x1b[1mbold\x1b[0m")), false);
 * assert.equal(modes.asks(bytes("\x1b[?1049h")), true); // alternate screen
 * ```
 * @module
 */

const ESC = 0x1b;
const [CSI, OSC, DCS] = [0x5b, 0x5d, 0x50];
const code = (c: string) => c.charCodeAt(0);
/** CSI queries end in `n` (DSR), `c` (DA), `t` (window reports) or `$p` (DECRQM). */
const CSI_FINALS = new Set([code("n"), code("c"), code("t")]);
const isParam = (b: number) => (b >= 0x30 && b <= 0x3b) || b === 0x3f || b === 0x3e || b === 0x3d;
/** A split sequence is looked for in the last bytes of a chunk, ESC included. */
const MAX_CARRY = 32;

/** Whether the sequence at `at` is one looked for; `undefined` when the chunk ends too soon. */
type Matcher = (b: Uint8Array, at: number) => boolean | undefined;

/** Watches one output stream for the escape sequences `matcher` recognizes. */
class SequenceScanner {
  #carry: Uint8Array | undefined;
  readonly #matcher: Matcher;

  constructor(matcher: Matcher) {
    this.#matcher = matcher;
  }

  /** Whether `bytes` (following the earlier chunks) holds such a sequence. */
  asks(bytes: Uint8Array): boolean {
    let chunk = bytes;
    if (this.#carry) {
      chunk = new Uint8Array(this.#carry.length + Math.min(bytes.length, MAX_CARRY));
      chunk.set(this.#carry);
      chunk.set(bytes.subarray(0, MAX_CARRY), this.#carry.length);
      this.#carry = undefined;
      if (this.#matcher(chunk, 0) === true) return true;
      chunk = bytes;
    }
    for (let at = chunk.indexOf(ESC); at >= 0; at = chunk.indexOf(ESC, at + 1)) {
      const found = this.#matcher(chunk, at);
      if (found === true) return true;
      if (found === undefined && chunk.length - at < MAX_CARRY) this.#carry = chunk.slice(at);
    }
    return false;
  }
}

/** Watches one output stream for terminal queries. */
export class QueryScanner extends SequenceScanner {
  constructor() {
    super(queryAt);
  }
}

/**
 * Watches one output stream for what may change its input modes: any `CSI ?`
 * sequence (DECSET, DECRST, XTRESTORE …), RIS (`ESC c`) and DECSTR (`CSI ! p`).
 */
export class ModeScanner extends SequenceScanner {
  constructor() {
    super(modeAt);
  }
}

function modeAt(b: Uint8Array, at: number): boolean | undefined {
  const next = b[at + 1];
  if (next === undefined) return undefined;
  if (next === code("c")) return true;
  if (next !== CSI) return false;
  const first = b[at + 2];
  if (first === undefined) return undefined;
  if (first === code("?") || first === code("!")) return true;
  return false;
}

/**
 * Whether the sequence at `at` is a query; `undefined` when the chunk ends
 * before that can be told. OSC queries have `?` as their value; DCS `$q`
 * (DECRQSS) and `+q` (XTGETTCAP) ask for settings.
 */
function queryAt(b: Uint8Array, at: number): boolean | undefined {
  let i = at + 2;
  switch (b[at + 1]) {
    case undefined:
      return undefined;
    case CSI:
      while (i < b.length && isParam(b[i])) i++;
      if (i >= b.length) return undefined;
      if (CSI_FINALS.has(b[i])) return true;
      return b[i] === code("$") ? (i + 1 < b.length ? b[i + 1] === code("p") : undefined) : false;
    case OSC:
      while (i < b.length && isParam(b[i]) && b[i] !== code("?")) i++;
      if (i >= b.length) return undefined;
      return b[i] === code("?") && b[i - 1] === code(";");
    case DCS:
      if (i + 1 >= b.length) return undefined;
      return (b[i] === code("$") || b[i] === code("+")) && b[i + 1] === code("q");
    default:
      return false;
  }
}
