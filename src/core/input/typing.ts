/**
 * How `content` reaches a program on a terminal: typed, as a person types
 * it, or pasted when asked.
 *
 * **Typed** (the default): one line at a time, each line end (`\n`, `\r\n`
 * or `\r`) pressed as the Enter key (`\r`, which a line discipline in
 * canonical mode turns into `\n`). A program that reads keys (readline, vim,
 * sqlite3) gets what a keyboard sends, and one that tells Enter from Ctrl+J
 * (Ink-based TUIs, a Windows console) gets Enter. The caller types each next
 * line once the program waits for input again, as a person reads the prompt
 * before typing on.
 *
 * **Pasted** (`paste: true`, where the program enabled bracketed paste,
 * DECSET 2004): the text between `ESC [ 200 ~` and `ESC [ 201 ~`, its line
 * ends as a terminal sends them in a paste (`\r`), so a block arrives whole
 * (a function into bash, a code block into Python 3.13's REPL); the line end
 * that ends it is then typed, as a person presses Enter after a paste.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pasteOf, typedLines } from "./typing.ts";
 *
 * assert.deepEqual(typedLines(".mode box\nselect 1;\n"), [".mode box\r", "select 1;\r"]);
 * assert.deepEqual(typedLines("ihello\rworld"), ["ihello\r", "world"]);
 * assert.deepEqual(typedLines(""), [""]);
 * assert.equal(pasteOf("f() {\n  echo hi\n}\n"), "\x1b[200~f() {\r  echo hi\r}\x1b[201~\r");
 * assert.equal(pasteOf("ls"), "\x1b[200~ls\x1b[201~");
 * ```
 * @module
 */

/** What the Enter key sends on a terminal. */
const ENTER = "\r";
const START = "\x1b[200~";
const END = "\x1b[201~";
const LINE_END = /\r\n|\n|\r/g;

/**
 * `content` as the keys a person types, one element per line, each line
 * end made Enter; the last element is what follows the last line end
 * (empty when the content ends with one, unless it is all there is).
 */
export function typedLines(content: string): string[] {
  const lines = content.split(LINE_END);
  const typed = lines.slice(0, -1).map((line) => line + ENTER);
  const rest = lines.at(-1)!;
  return rest === "" && typed.length > 0 ? typed : [...typed, rest];
}

/**
 * The lines a terminal echoes back as they were typed (`lines`, from
 * {@link typedLines}), a last line without a line end completed by an Enter
 * pressed alone after it (`keys`); none after a secret, which is not echoed.
 */
export function echoOf(lines: string[], keys: string[], secret?: string): string[] {
  if (secret !== undefined) return [];
  const enter = keys.length === 1 && keys[0].toLowerCase() === "enter";
  return enter ? [...lines.slice(0, -1), lines.at(-1)! + ENTER] : lines;
}

/** `content` as one bracketed paste, its final line end typed as Enter after it. */
export function pasteOf(content: string): string {
  const body = content.replace(/(\r\n|\n|\r)$/, "");
  const enter = body.length < content.length ? ENTER : "";
  return START + body.replace(LINE_END, ENTER) + END + enter;
}
