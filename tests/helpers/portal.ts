/**
 * The fixtures most tests use: a fresh Portal server per test (see
 * `dev/portal_client.ts`), closed whatever the outcome; or one server for all
 * the tests of a file that keep no state between them ({@link sharedPortal}).
 *
 * @module
 */
import { endHost, Portal, type StartOptions } from "../../dev/portal_client.ts";
import { type TempDir, tempDir } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";
import { posixTest, type TestOptions } from "./platform.ts";

/**
 * A {@link posixTest} that gets a fresh server, closed whatever the outcome;
 * `only` restricts it to one OS (reported as ignored elsewhere), `needs`
 * names a program a machine may lack.
 */
export function portalTest(
  name: string,
  fn: (portal: Portal) => void | Promise<void>,
  options: Omit<TestOptions, "shares"> = {},
): void {
  posixTest(name, async () => {
    await using portal = await Portal.start();
    await fn(portal);
  }, options);
}

/**
 * A {@link portalTest} of what the kernel tells about input (Linux /proc):
 * the states and the exact moment a wait ends. Elsewhere (macOS, Windows)
 * waits fall back to silence and prompt-like lines, which these do not test.
 */
export function linuxTest(
  name: string,
  fn: (portal: Portal) => void | Promise<void>,
  options: { needs?: string } = {},
): void {
  portalTest(name, fn, { only: "linux", ...options });
}

/** The two test functions of {@link sharedPortal}: those of this module, on one server. */
export interface SharedTests {
  portalTest: typeof portalTest;
  linuxTest: typeof linuxTest;
}

/**
 * One server for the tests of a file that keep no state between them: each
 * starts its own processes and asserts nothing about any other's (not "no
 * processes", not an id's number). Its {@link portalTest} and
 * {@link linuxTest} run on that server, which the first of them to run
 * starts and which is closed after the file's last test; a start (a door and
 * its host, about a second of CPU) is saved per test.
 *
 * @example
 * ```ts ignore
 * const { portalTest } = sharedPortal();
 * portalTest("an unknown id is a tool error", async (portal) => { ... });
 * ```
 */
export function sharedPortal(options: StartOptions = {}): SharedTests {
  const server = sharedServer(options);
  const test: typeof portalTest = (name, fn, testOptions = {}) =>
    posixTest(name, async () => {
      await fn(await server());
    }, { ...testOptions, shares: true });
  return {
    portalTest: test,
    linuxTest: (name, fn, testOptions = {}) => test(name, fn, { only: "linux", ...testOptions }),
  };
}

/**
 * The server of {@link sharedPortal}, for tests of another form (a browser's):
 * started by the first call, closed after the file's last test. A test that
 * uses it shares what outlives it: its sanitizers must be off.
 */
export function sharedServer(options: StartOptions = {}): () => Promise<Portal> {
  let server: Promise<Portal> | undefined;
  Deno.test.afterAll(async () => {
    const portal = await server?.catch(() => undefined);
    await portal?.close();
  });
  return () => server ??= Portal.start(options);
}

/**
 * A directory for Portals that share a host (`Portal.start({ dir })`, whose
 * close leaves the host up); disposing it ends that host, whatever the outcome.
 */
export async function hostDir(): Promise<TempDir> {
  const dir = await tempDir("portal-host-");
  return {
    path: dir.path,
    async [Symbol.asyncDispose]() {
      await endHost(dir.path);
      // Something of the host's may still write there as it leaves (seen once, three doors
      // started at one instant, at load 9): a file made during the removal is ENOTEMPTY.
      await waitFor(
        `${dir.path} to be removed`,
        async () => {
          try {
            await dir[Symbol.asyncDispose]();
            return true;
          } catch (error) {
            if ((error as { code?: string }).code !== "ENOTEMPTY") throw error;
            return false;
          }
        },
        { timeoutMs: 5000, intervalMs: 50 },
      );
    },
  };
}
