/**
 * Builds Portal into one directory that runs with an empty Deno cache and
 * no registry reachable: `deno bundle` puts main.ts and every npm package it
 * imports (SDK, zod, xterm, re2js, smol-toml…), with the watch page's assets
 * (text imports), into `main.js` and the chunks it loads as it needs them,
 * and each Worker into a file of its own; `build.json` names the version and
 * each file's SHA-256. Runs as
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

/** The Workers: source (each an entry point of its own) and the URL its starter gives it. */
const WORKERS: [source: string, url: string][] = [
  ["src/core/screen/emulator_worker.ts", "./emulator_worker.ts"],
];

/** What a build directory holds: its version and the SHA-256 (hex) of each file. */
export interface BuildManifest {
  version: string;
  /** The version and the first 12 hex of the files' digest: two different builds differ here. */
  id: string;
  /** Path in the build (`main.js`, `chunk-….js`, `src/core/…/worker.js`) → SHA-256. */
  files: Record<string, string>;
}

/** Every file under `dir`, as paths relative to it. */
function walk(dir: string, sub = ""): string[] {
  return [...Deno.readDirSync(`${dir}/${sub}`)].flatMap((entry) => {
    const path = sub ? `${sub}/${entry.name}` : entry.name;
    return entry.isDirectory ? walk(dir, path) : [path];
  });
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
  const staged = `${out}.new`;
  await Deno.remove(staged, { recursive: true }).catch(() => {});
  // Code splitting keeps main.ts's lazy imports lazy: a door loads only the door's chunks.
  const { success } = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      ...["--config", `${temp.path}/deno.json`, "--lock=deno.lock", "--frozen-lockfile"],
      ...["--platform", "deno", "--code-splitting", "--outdir", staged],
      ...["main.ts", ...WORKERS.map(([source]) => source)],
    ],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "null",
  }).spawn().status;
  if (!success) throw new Error("deno bundle failed (its message is above)");

  // The chunks still start each Worker by its source's URL: point it at the Worker's file.
  const paths = walk(staged).sort();
  for (const [source, url] of WORKERS) {
    const started = `new Worker(new URL("${url}", import.meta.url)`;
    const starters = paths.filter((path) =>
      Deno.readTextFileSync(`${staged}/${path}`).includes(started)
    );
    if (starters.length !== 1 || starters[0].includes("/")) {
      throw new Error(
        `the build starts the Worker ${url} in ${starters.length} files: ${source} moved?`,
      );
    }
    const text = await Deno.readTextFile(`${staged}/${starters[0]}`);
    const file = source.replace(/\.ts$/, ".js");
    await Deno.writeTextFile(
      `${staged}/${starters[0]}`,
      text.replace(started, `new Worker(new URL("./${file}", import.meta.url)`),
    );
  }

  const files: Record<string, string> = {};
  for (const path of paths) {
    const text = await Deno.readTextFile(`${staged}/${path}`);
    // Self-contained: the only modules left to load are Node's built-ins and the build's own.
    const outside = [
      ...text.matchAll(/(?:^(?:import|export)\b[^;]*?from\s*|\bimport\(\s*)"([^"]+)"/gm),
    ]
      .map((m) => m[1]).filter((specifier) => !/^(node:|\.\.?\/)/.test(specifier));
    if (outside.length > 0) throw new Error(`${path} still imports ${outside.join(", ")}`);
    // A Worker added to the source and not to WORKERS would still point at a .ts file.
    const unbundled = /new URL\("[^"]+\.ts", import\.meta\.url\)/.exec(text);
    if (unbundled) throw new Error(`${path} loads ${unbundled[0]}: add it to WORKERS`);
    files[path] = await sha256(await Deno.readFile(`${staged}/${path}`));
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
