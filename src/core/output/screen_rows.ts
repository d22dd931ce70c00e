/**
 * A rendered screen's rows as a reader needs them: no trailing spaces, and
 * not the run of empty rows a full-screen program draws below its text
 * (vim's column of `~`), which only costs a model's attention; the rows left
 * out are named, so row numbers (and the cursor's) still hold.
 *
 * @module
 */

/** A screen row with nothing on it for a reader: blank, or vim's `~` past the end of a file. */
export const EMPTY_ROW = /^\s*~?\s*$/;

/**
 * A screen's rows without trailing spaces and without its longest run of
 * empty rows (two or more) when it reaches the last row or stops only
 * before the bottom lines (a status and a command line): vim's column of
 * `~`. The rows left out are named, so row numbers still hold.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compactRows } from "./screen_rows.ts";
 *
 * assert.deepEqual(compactRows(["hi", "~", "~", "~", "\"f\" 1L  "]), {
 *   lines: ["hi", "\"f\" 1L"],
 *   omitted: { from: 1, to: 3 },
 * });
 * ```
 */
export function compactRows(rows: string[]): {
  lines: string[];
  omitted?: { from: number; to: number };
} {
  const lines = rows.map((row) => row.trimEnd());
  let to = lines.length - 1;
  // The bottom lines (at most two) that are not empty stay: vim's status and command line.
  while (to >= 0 && to >= lines.length - 2 && !EMPTY_ROW.test(lines[to])) to--;
  let from = to;
  while (from >= 0 && EMPTY_ROW.test(lines[from])) from--;
  from++;
  if (to - from < 1) return { lines };
  return { lines: [...lines.slice(0, from), ...lines.slice(to + 1)], omitted: { from, to } };
}
