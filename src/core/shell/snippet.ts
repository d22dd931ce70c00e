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
 * It carries the key the hooks sign their marks with, as text typed at the
 * shell (never in a variable the commands inherit). Its echo holds the key
 * and the hooks as plain text, no escape sequence: the echo is no mark.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { integrationSnippet } from "./snippet.ts";
 *
 * const line = integrationSnippet("c0ffee");
 * assert.match(line, /^ test -n "\$FISH_VERSION" && eval 'set -gu __portal_k c0ffee; /);
 * assert.ok(!line.includes("\n") && !line.includes("\x1b"));
 * ```
 * @module
 */
import { hooksFor, oneLine } from "./hooks.ts";

/** `code` as a single-quoted word every shell reads alike; fish doubles its backslashes. */
function quoted(code: string, forFish: boolean): string {
  if (code.includes("'") || code.endsWith("\\")) {
    throw new Error("shell integration hooks must hold no single quote nor end with a backslash");
  }
  return `'${forFish ? code.replaceAll("\\", "\\\\") : code}'`;
}

/** The line whose hooks sign with `key`, without its Enter. */
export function integrationSnippet(key: string): string {
  return " " + [
    `test -n "$FISH_VERSION" && eval ${quoted(oneLine(hooksFor("fish", key)), true)}`,
    `test -n "$ZSH_VERSION" && eval ${quoted(oneLine(hooksFor("zsh", key)), false)}`,
    `test -n "$BASH_VERSION" && eval ${quoted(oneLine(hooksFor("bash", key)), false)}`,
  ].join("; ");
}
