/**
 * Which tests run where.
 *
 * @module
 */

/**
 * A test that needs POSIX (sh, sleep, python3, pseudo-terminals): skipped on
 * Windows, where the pipe backend is exercised by the portable tests only.
 */
export function posixTest(name: string, fn: () => void | Promise<void>): void {
  Deno.test({ name, ignore: Deno.build.os === "windows", fn });
}
