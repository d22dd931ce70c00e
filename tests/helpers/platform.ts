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

/**
 * A test of the Windows backends (ConPTY, Job Objects, cmd.exe, PowerShell):
 * ignored elsewhere, its name saying so in the report. `needs` adds a
 * condition with its reason, e.g. a program the runner may lack.
 */
export function windowsTest(
  name: string,
  fn: () => void | Promise<void>,
  needs: { ok: boolean; reason: string } = { ok: true, reason: "" },
): void {
  const reason = needs.ok ? "Windows only" : `Windows only, ${needs.reason}`;
  Deno.test({ name: `[${reason}] ${name}`, ignore: Deno.build.os !== "windows" || !needs.ok, fn });
}
