/**
 * Whether a path exists, as a test or a bench asks it: the entry itself,
 * so a link that leads nowhere (or somewhere hidden) still counts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { exists } from "./exists.ts";
 *
 * assert.equal(exists("/"), true);
 * assert.equal(exists("/no/such/path"), false);
 * ```
 * @module
 */

/** Whether `path` names an entry (not followed if it is a link). */
export function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
