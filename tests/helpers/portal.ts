/**
 * The fixture most tests use: a fresh Portal server per test (see
 * `dev/portal_client.ts`), closed whatever the outcome.
 *
 * @module
 */
import { endHost, Portal } from "../../dev/portal_client.ts";
import { type TempDir, tempDir } from "../../dev/temp_dir.ts";
import { posixTest } from "./platform.ts";

/**
 * A {@link posixTest} that gets a fresh server, closed whatever the outcome;
 * `only` restricts it to one OS (reported as ignored elsewhere), `needs`
 * names a program a machine may lack.
 */
export function portalTest(
  name: string,
  fn: (portal: Portal) => Promise<void>,
  options: { only?: typeof Deno.build.os; needs?: string } = {},
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
  fn: (portal: Portal) => Promise<void>,
  options: { needs?: string } = {},
): void {
  portalTest(name, fn, { only: "linux", ...options });
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
      await dir[Symbol.asyncDispose]();
    },
  };
}
