/**
 * The one string Windows gives a program for its arguments. `CreateProcessW`
 * takes a command line, not an argv; each program splits it again, nearly
 * always by the rules of the Microsoft C runtime (`CommandLineToArgvW`). This
 * builds the line those rules split back into exactly the given arguments.
 *
 * The rules, for arguments after the first: whitespace (space, tab)
 * separates arguments unless inside double quotes; `2n` backslashes before a
 * `"` mean `n` backslashes and a quote that opens or closes, `2n+1` mean `n`
 * backslashes and a literal `"`; backslashes anywhere else are literal. The
 * first argument (the program name) is read differently: up to the next
 * quote when it starts with one, else up to whitespace, with no escapes.
 *
 * cmd.exe does not follow these rules for what comes after `/c`; arguments
 * for it reach it quoted as here, and it reads them its own way.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { commandLine } from "./command_line.ts";
 *
 * assert.equal(commandLine("python", ["-c", 'print("hi")']), '"python" -c "print(\\"hi\\")"');
 * assert.equal(commandLine("app", ["", "a b", "C:\\dir\\"]), '"app" "" "a b" C:\\dir\\');
 * ```
 * @module
 */

/** Characters that make an argument need quotes: whitespace the runtime splits on, and `"`. */
const NEEDS_QUOTES = /[ \t\n\v"]/;

/** One argument (not the first), quoted only when it must be. */
export function quoteArgument(arg: string): string {
  if (arg !== "" && !NEEDS_QUOTES.test(arg)) return arg;
  let quoted = '"';
  let backslashes = 0;
  for (const ch of arg) {
    if (ch === "\\") {
      backslashes++;
      continue;
    }
    // Backslashes before a quote are doubled, and the quote escaped with one more.
    quoted += ch === '"' ? "\\".repeat(backslashes * 2 + 1) + '"' : "\\".repeat(backslashes) + ch;
    backslashes = 0;
  }
  // Backslashes before the closing quote are doubled so that it stays a closing quote.
  return quoted + "\\".repeat(backslashes * 2) + '"';
}

/**
 * The command line for `program` with `args`. The program name is always
 * quoted (as Rust's std does), so a path with spaces is never split; it cannot
 * contain `"` (no Windows file name can).
 */
export function commandLine(program: string, args: readonly string[]): string {
  return [`"${program}"`, ...args.map(quoteArgument)].join(" ");
}
