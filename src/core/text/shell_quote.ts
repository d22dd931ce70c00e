/**
 * A string as one single-quoted shell word: what the shell integration
 * writes into its files, and what error messages offer to paste.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shellQuote } from "./shell_quote.ts";
 *
 * assert.equal(shellQuote("it's"), `'it'\\''s'`);
 * ```
 * @module
 */

/** `text` as one single-quoted shell word. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
