/**
 * The terminal's echo of what the agent typed, left out of a step's output
 * where it is exactly that echo: each typed line (ended by Enter) that the
 * output starts with, in order, up to the first that differs. Anything the
 * program drew instead or besides (a continuation prompt before a line, a
 * completion, sqlite3's prompt before its second line) stays, and from
 * there on the output is kept whole; a password's prompt echoes nothing,
 * so nothing is left out. Only on a terminal: a program on pipes that
 * prints a line it was given (cat) printed it itself.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { leaveOutEcho } from "./echo.ts";
 *
 * assert.deepEqual(leaveOutEcho("6 * 7\n42\n>>> ", ["6 * 7\r"]), { text: "42\n>>> ", chars: 6 });
 * assert.deepEqual(
 *   leaveOutEcho("if 1:\n...     2\n... ", ["if 1:\r", "    2\r", "\r"]),
 *   { text: "...     2\n... ", chars: 6 },
 * );
 * ```
 * @module
 */

/** `text` without the echo of `typed` (lines as typed, Enter as `\r`), and its length. */
export function leaveOutEcho(text: string, typed: string[]): { text: string; chars: number } {
  let at = 0;
  for (const line of typed) {
    if (!line.endsWith("\r") && !line.endsWith("\n")) break;
    const echo = line.slice(0, -1) + "\n";
    if (!text.startsWith(echo, at)) break;
    at += echo.length;
  }
  return { text: text.slice(at), chars: at };
}
