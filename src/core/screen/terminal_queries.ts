/**
 * Spots, cheaply and on raw bytes, the escape sequences a program sends to ask
 * its terminal something (cursor position, device attributes, a mode, a
 * colour, a setting): the lazy screen must answer those promptly, so they make
 * it catch up at once. A false alarm only costs an early catch-up. A sequence
 * split between two chunks is found by keeping the tail after the last ESC.
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
 * ```
 * @module
 */

import { EscapeSequences } from "./escape_sequences.ts";

const [CSI, OSC, DCS] = [0x5b, 0x5d, 0x50];
const code = (c: string) => c.charCodeAt(0);
/** CSI queries end in `n` (DSR), `c` (DA), `t` (window reports) or `$p` (DECRQM). */
const CSI_FINALS = new Set([code("n"), code("c"), code("t")]);
const isParam = (b: number) => (b >= 0x30 && b <= 0x3b) || b === 0x3f || b === 0x3e || b === 0x3d;
/** Watches one output stream for terminal queries. */
export class QueryScanner {
  readonly #sequences = new EscapeSequences();

  /** Whether `bytes` (following the earlier chunks) holds a query. */
  asks(bytes: Uint8Array): boolean {
    let found = false;
    this.#sequences.walk(bytes, (b, at) => {
      const query = queryAt(b, at);
      found ||= query === true;
      return query !== undefined;
    });
    return found;
  }
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
