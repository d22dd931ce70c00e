/**
 * Text a program supplied (its command, its name, a path), made safe to print
 * on a person's terminal: control characters (C0, DEL, C1: what starts an
 * escape sequence, moves the cursor, rings the bell or retitles the window)
 * are shown as `\xNN` instead of acting on it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { visible } from "./visible.ts";
 *
 * assert.equal(visible("ls\x1b]0;pwned\x07"), "ls\\x1b]0;pwned\\x07");
 * assert.equal(visible("café 😀"), "café 😀");
 * ```
 * @module
 */

/** C0 controls, DEL and C1 controls. */
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x1f\x7f-\x9f]/g;

/** `text` with each control character as `\xNN`. */
export function visible(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}
