/**
 * Which tests run where.
 *
 * @module
 */

/**
 * A test that needs POSIX (sh, sleep, python3, pseudo-terminals): skipped on
 * Windows, where the pipe backend is exercised by the portable tests only.
 * `only` restricts it further to one OS.
 */
export function posixTest(
  name: string,
  fn: (t: Deno.TestContext) => void | Promise<void>,
  options: { only?: typeof Deno.build.os } = {},
): void {
  const ignore = Deno.build.os === "windows" ||
    (options.only !== undefined && options.only !== Deno.build.os);
  Deno.test({ name, ignore, fn });
}
