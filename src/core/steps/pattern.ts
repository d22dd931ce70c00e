/**
 * The patterns an agent gives, `expect` (per call) and `prompt` (per
 * process): compiled once, when the call is checked and before anything is
 * sent, and what a match of `expect` reports.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compilePattern, matchOf } from "./pattern.ts";
 *
 * const found = compilePattern("^(?<n>\\d+) (\\w+)$", "expect").exec("x\n42 apples");
 * assert.deepEqual(matchOf(found!), { text: "42 apples", groups: { 1: "42", 2: "apples", n: "42" } });
 * assert.throws(() => compilePattern("(", "expect"), /expect "\(" is not a valid/);
 * ```
 * @module
 */
import { PortalError, quote } from "../../errors.ts";
import type { WaitMatch } from "../model/schema.ts";

/** `source` compiled as a JavaScript regex (m flag), or a tool error naming `argument`. */
export function compilePattern(source: string, argument: string): RegExp {
  try {
    return new RegExp(source, "m");
  } catch (error) {
    // V8 quotes the whole pattern ("Invalid regular expression: /…/m: Unterminated group").
    const reason = (error as Error).message.split(/\/m: /).at(-1);
    throw new PortalError(
      `${argument} ${quote(source)} is not a valid JavaScript regular expression: ${reason}.`,
    );
  }
}

/** The matched text and its capture groups: numbered ("1", "2", …) and named. */
export function matchOf(found: RegExpExecArray): WaitMatch {
  const groups: Record<string, string> = {};
  found.slice(1).forEach((value, i) => {
    if (value !== undefined) groups[String(i + 1)] = value;
  });
  for (const [name, value] of Object.entries(found.groups ?? {})) {
    if (value !== undefined) groups[name] = value;
  }
  return { text: found[0], groups };
}
