/**
 * Bracketed paste: a program that set DECSET 2004 (bash's readline, many
 * REPLs) takes text between `ESC [ 200 ~` and `ESC [ 201 ~` as one paste, so
 * multi-line code arrives whole instead of running line by line. Text of
 * several lines is pasted; the newline that ends it is then typed, as a
 * person presses Enter after a paste, so the pasted block runs once.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pasteOf } from "./paste.ts";
 *
 * assert.equal(pasteOf("f() {\n  echo hi\n}\n"), "\x1b[200~f() {\n  echo hi\n}\x1b[201~\n");
 * assert.equal(pasteOf("ls\n"), null); // one line: typed as it is
 * assert.equal(pasteOf(":wq\r"), null);
 * ```
 * @module
 */

const START = "\x1b[200~";
const END = "\x1b[201~";

/**
 * `content` as a bracketed paste followed by its final newline, or null
 * when it is a single line (with or without its newline), which is typed.
 */
export function pasteOf(content: string): string | null {
  const body = content.replace(/(\r\n|\r|\n)$/, "");
  if (!/[\r\n]/.test(body)) return null;
  return START + body + END + content.slice(body.length);
}
