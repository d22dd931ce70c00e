/**
 * Builds Portal into one directory that runs with an empty Deno cache and
 * no registry reachable: `deno bundle` puts main.ts and every npm package it
 * imports (SDK, zod, xterm, re2js, smol-toml…), with the watch page's assets
 * (text imports), into `main.js`, and each Worker into a file of its own
 * beside it; `build.json` names the version and each file's SHA-256. Runs as
 * `deno run -A --no-config DIR/main.js` (see docs/decisions/2026-12-07-build.md).
 *
 *     deno task build                 # dist/portal/
 *     deno task build --out DIR       # DIR (replaced whole)
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { VERSION } from "../src/version.ts";
import { tempDir } from "./temp_dir.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The Workers: source (as main.ts's graph names it) → file in the build. */
const WORKERS: [source: string, url: string, file: string][] = [
  ["src/core/screen/emulator_worker.ts", "./emulator_worker.ts", "emulator_worker.js"],
  ["src/core/store/commit/worker.ts", "./worker.ts", "commit_worker.js"],
];

/** What a build directory holds: its version and the SHA-256 (hex) of each file. */
export interface BuildManifest {
  version: string;
  /** The version and the first 12 hex of the files' digest: two different builds differ here. */
  id: string;
  files: Record<string, string>;
}

/** Writes the build into `out` (replacing it whole: written beside, then renamed); its manifest. */
export async function build(out: string): Promise<BuildManifest> {
  await using temp = await tempDir("portal-build-");
  // @xterm/headless names an ES module ("module": "lib/xterm.mjs") that its package does not
  // hold, which the bundler follows and Deno does not: the bundle takes the file Deno runs.
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  config.imports["@xterm/headless"] += "/lib-headless/xterm-headless.js";
  await Deno.writeTextFile(
    `${temp.path}/deno.json`,
    JSON.stringify({ imports: config.imports, scopes: config.scopes }),
  );
  const bundled = `${temp.path}/out`;
  const { success } = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      ...["--config", `${temp.path}/deno.json`, "--lock=deno.lock", "--frozen-lockfile"],
      ...["--platform", "deno", "--outdir", bundled, "main.ts", ...WORKERS.map(([s]) => s)],
    ],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "null",
  }).spawn().status;
  if (!success) throw new Error("deno bundle failed (its message is above)");

  const staged = `${out}.new`;
  await Deno.remove(staged, { recursive: true }).catch(() => {});
  await Deno.mkdir(staged, { recursive: true });
  // The main bundle still starts each Worker by its source's URL: point it at the Worker's file.
  let main = await Deno.readTextFile(`${bundled}/main.js`);
  for (const [source, url, file] of WORKERS) {
    const started = `new Worker(new URL("${url}", import.meta.url)`;
    if (main.split(started).length !== 2) {
      throw new Error(`main.js starts the Worker ${url} other than once: ${source} moved?`);
    }
    main = main.replace(started, `new Worker(new URL("./${file}", import.meta.url)`);
    await Deno.rename(`${bundled}/${source.replace(/\.ts$/, ".js")}`, `${staged}/${file}`);
  }
  await Deno.writeTextFile(`${staged}/main.js`, main);

  const files: Record<string, string> = {};
  for (const name of ["main.js", ...WORKERS.map(([, , file]) => file)].sort()) {
    const text = await Deno.readTextFile(`${staged}/${name}`);
    // Self-contained: the only modules left to load are Node's built-ins.
    const outside = [...text.matchAll(/^(?:import|export)\b[^;]*?from\s*"([^"]+)"/gm)]
      .map((m) => m[1]).filter((specifier) => !specifier.startsWith("node:"));
    if (outside.length > 0) throw new Error(`${name} still imports ${outside.join(", ")}`);
    // A Worker added to the source and not to WORKERS would still point at a .ts file.
    const unbundled = /new URL\("[^"]+\.ts", import\.meta\.url\)/.exec(text);
    if (unbundled) throw new Error(`${name} loads ${unbundled[0]}: add it to WORKERS`);
    files[name] = await sha256(await Deno.readFile(`${staged}/${name}`));
  }
  const digest = await sha256(new TextEncoder().encode(JSON.stringify(files)));
  const manifest = { version: VERSION, id: `${VERSION}+${digest.slice(0, 12)}`, files };
  await Deno.writeTextFile(`${staged}/build.json`, JSON.stringify(manifest, null, 2) + "\n");
  await Deno.remove(out, { recursive: true }).catch(() => {});
  await Deno.rename(staged, out);
  return manifest;
}

/** SHA-256 of `bytes`, in hex. */
export async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--out");
  const out = at >= 0 ? Deno.args[at + 1] : `${ROOT}dist/portal`;
  const manifest = await build(out);
  console.error(`${manifest.id}: ${Object.keys(manifest.files).length} files`);
  console.log(out);
}
