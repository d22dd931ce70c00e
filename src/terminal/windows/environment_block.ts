/**
 * The environment block `CreateProcessW` takes with
 * `CREATE_UNICODE_ENVIRONMENT`: UTF-16 `NAME=value` strings, each ending in
 * NUL, the block ending in one more NUL.
 *
 * Windows compares variable names without regard to case, so `Path` (as
 * Windows spells it) and `PATH` (as an agent may) are one variable: the one
 * set last wins, as in the merged environment of launch.ts, where the
 * agent's variables come after the server's. The block is sorted by name,
 * case-insensitively in code-unit order, as the documentation of
 * `CreateProcess` asks; `=C:`-style names (each drive's working directory,
 * which cmd.exe keeps) are ordinary entries and sort first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { environmentBlock } from "./environment_block.ts";
 *
 * const block = environmentBlock({ Path: "C:\\bin", A: "1", PATH: "D:\\bin" });
 * assert.equal(String.fromCharCode(...block), "A=1\0PATH=D:\\bin\0\0");
 * ```
 * @module
 */
import { wide } from "../../../ffi/kernel32.ts";

/**
 * `name` upper-cased code unit by code unit, as Windows compares names
 * (`CompareStringOrdinal` with ignoreCase): a unit whose upper case is not a
 * single unit (ß → SS) stays as it is.
 */
export function foldName(name: string): string {
  let folded = "";
  for (let i = 0; i < name.length; i++) {
    const unit = name[i];
    const upper = unit.toUpperCase();
    folded += upper.length === 1 ? upper : unit;
  }
  return folded;
}

/** The value of `name` in `env`, whatever its case; the entry set last wins. */
export function lookupVariable(env: Record<string, string>, name: string): string | undefined {
  const wanted = foldName(name);
  let found: string | undefined;
  for (const [key, value] of Object.entries(env)) if (foldName(key) === wanted) found = value;
  return found;
}

/** The block for `env` (whose names launch.ts checked), in a buffer that stays put. */
export function environmentBlock(env: Record<string, string>): Uint16Array<ArrayBuffer> {
  const byName = new Map<string, string>();
  for (const [name, value] of Object.entries(env)) {
    const folded = foldName(name);
    // Delete first so the entry takes the name as it was spelled last.
    byName.delete(folded);
    byName.set(folded, `${name}=${value}`);
  }
  const entries = [...byName.entries()]
    .sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    .map(([, entry]) => entry);
  // wide() adds the final NUL; an empty block still needs its two.
  return wide(entries.map((entry) => `${entry}\0`).join("") || "\0");
}
