/**
 * Which tests run where.
 *
 * @module
 */

/** The Debian package of each program a test may need that a machine may lack. */
const PACKAGES: Record<string, string> = { zsh: "zsh", fish: "fish" };

/** The marker of a test skipped for a missing program; .ci/run fails when it sees one. */
export const MISSING_PROGRAM = "not installed (package";

/**
 * Whether `program` is on PATH; when it is not, the line that says which
 * package to install, put before the test's name (Deno reports it ignored).
 */
export function needsProgram(program: string): { ok: boolean; reason: string } {
  const found = (Deno.env.get("PATH") ?? "").split(":").some((dir) => {
    try {
      return dir !== "" && Deno.statSync(`${dir}/${program}`).isFile;
    } catch {
      return false;
    }
  });
  return { ok: found, reason: `[skipped: ${program} ${MISSING_PROGRAM} ${PACKAGES[program]})] ` };
}

/** Where a test runs, and what it needs: see {@link posixTest}. */
export interface TestOptions {
  only?: typeof Deno.build.os;
  needs?: string;
  /** It needs nothing of POSIX: it runs on Windows too. */
  portable?: boolean;
  /** It uses what outlives it (a server shared by its file): no check for leaked ops or resources. */
  shares?: boolean;
}

/**
 * A test that needs POSIX (sh, sleep, python3, pseudo-terminals): skipped on
 * Windows, where the pipe backend is exercised by the portable tests only.
 * `only` restricts it further to one OS; `needs` names a program it runs that
 * a machine may lack (skipped without it, the package named).
 */
export function posixTest(
  name: string,
  fn: (t: Deno.TestContext) => void | Promise<void>,
  options: TestOptions = {},
): void {
  const osIgnored = (Deno.build.os === "windows" && !options.portable) ||
    (options.only !== undefined && options.only !== Deno.build.os);
  const program = options.needs === undefined || osIgnored
    ? undefined
    : needsProgram(options.needs);
  const missing = program !== undefined && !program.ok;
  Deno.test({
    name: missing ? `${program.reason}${name}` : name,
    ignore: osIgnored || missing,
    ...options.shares ? { sanitizeOps: false, sanitizeResources: false } : {},
    fn,
  });
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
