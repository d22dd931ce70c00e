/**
 * Joining byte arrays, as Deno std's `bytes/concat.ts` does (jsr: cannot be
 * fetched where Portal is built).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { concatBytes } from "./bytes.ts";
 *
 * const joined = concatBytes([new Uint8Array([1, 2]), new Uint8Array([3])]);
 * assert.deepEqual([...joined], [1, 2, 3]);
 * ```
 * @module
 */

/** One array holding `parts` in order (a single part is returned as it is). */
export function concatBytes(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
