/**
 * The one line `process_write` types with `integrate: true` into whatever
 * shell is in front (over ssh, in a container, after `sudo -i`), where
 * Portal could not add its hooks at launch: the same hooks (hooks.ts), for
 * bash, zsh or fish, whichever reads the line. Each shell runs its own part
 * and passes over the others': `test -n "$FISH_VERSION" && eval '…'`, then
 * the same for zsh and bash. Every shell reads the three single-quoted words
 * alike (fish would read `\'` inside one as a quote, the others not: no part
 * holds a quote); fish's part has its backslashes doubled, as fish reads
 * them inside single quotes. A shell that is none of the three (dash) runs
 * nothing. It starts with a space, so shells that keep such lines out of
 * their history (bash with `ignorespace`, fish) do.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { INTEGRATION_SNIPPET } from "./snippet.ts";
 *
 * assert.match(INTEGRATION_SNIPPET, /^ test -n "\$FISH_VERSION" && eval '/);
 * assert.ok(!INTEGRATION_SNIPPET.includes("\n"));
 * ```
 * @module
 */
import { BASH_HOOKS, FISH_HOOKS, oneLine, ZSH_HOOKS } from "./hooks.ts";

/** `code` as a single-quoted word every shell reads alike; fish doubles its backslashes. */
function quoted(code: string, forFish: boolean): string {
  if (code.includes("'") || code.endsWith("\\")) {
    throw new Error("shell integration hooks must hold no single quote nor end with a backslash");
  }
  return `'${forFish ? code.replaceAll("\\", "\\\\") : code}'`;
}

/** The line, without its Enter. */
export const INTEGRATION_SNIPPET = " " + [
  `test -n "$FISH_VERSION" && eval ${quoted(oneLine(FISH_HOOKS), true)}`,
  `test -n "$ZSH_VERSION" && eval ${quoted(oneLine(ZSH_HOOKS), false)}`,
  `test -n "$BASH_VERSION" && eval ${quoted(oneLine(BASH_HOOKS), false)}`,
].join("; ");
