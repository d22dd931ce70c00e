/**
 * `deno task pack`: the npm package `portal-mcp`, made from the build
 * (dev/build.ts) at pack time, so that the repository has no package.json
 * (one at its root would switch Deno into node_modules mode). Its bin
 * `portal` (portal.cjs) runs the build on the Deno runtime of the `deno`
 * npm package, pinned to the Deno that made and tested the build. Writes
 * `dist/portal-mcp-VERSION.tgz` and prints its path as the last line.
 * Publishing is a person's act (the release workflow, on a tag).
 *
 *     deno task pack
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { build } from "../build.ts";
import { tempDir } from "../temp_dir.ts";
import { VERSION } from "../../src/version.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The package's name in the npm registry (free when chosen: `npm view portal-mcp` → 404). */
export const PACKAGE = "portal-mcp";

/** Writes the package's tarball into `dest`; its path. */
export async function pack(dest: string): Promise<string> {
  await using stage = await tempDir("portal-pack-");
  const dir = `${stage.path}/package`;
  await build(`${dir}/portal`);
  await Deno.mkdir(`${dir}/bin`);
  await Deno.copyFile(`${ROOT}dev/package/portal.cjs`, `${dir}/bin/portal.cjs`);
  await Deno.chmod(`${dir}/bin/portal.cjs`, 0o755);
  await Deno.copyFile(`${ROOT}LICENSE`, `${dir}/LICENSE`);
  await Deno.writeTextFile(`${dir}/README.md`, README);
  const manifest = {
    name: PACKAGE,
    version: VERSION,
    description: "Portal: an MCP server that lets AI agents drive interactive terminal programs",
    license: "MIT",
    keywords: ["mcp", "model-context-protocol", "terminal", "pty", "repl", "ssh"],
    bin: { portal: "bin/portal.cjs" },
    files: ["bin/", "portal/", "README.md", "LICENSE"],
    engines: { node: ">=18" },
    // Exactly the Deno the build was made and tested with.
    dependencies: { deno: Deno.version.deno },
    // No file names the repository's address; the release workflow's run does (npm's provenance
    // statement must match it).
    ...repository(Deno.env.get("GITHUB_REPOSITORY")),
  };
  await Deno.writeTextFile(`${dir}/package.json`, JSON.stringify(manifest, null, 2) + "\n");
  await Deno.mkdir(dest, { recursive: true });
  const { success, stdout } = await new Deno.Command("npm", {
    args: ["pack", "--json", "--pack-destination", dest],
    cwd: dir,
    // Packing a directory needs no cache: none is written into the user's home (a test's is empty).
    env: { npm_config_cache: `${stage.path}/npm-cache`, npm_config_update_notifier: "false" },
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!success) throw new Error("npm pack failed (its message is above)");
  const [{ filename }] = JSON.parse(new TextDecoder().decode(stdout));
  return `${dest}/${filename}`;
}

/** package.json's `repository`, when a GitHub Actions run says which it is. */
function repository(name: string | undefined): { repository?: { type: string; url: string } } {
  return name ? { repository: { type: "git", url: `git+https://github.com/${name}.git` } } : {};
}

const README = `# portal-mcp

Portal is an MCP server that lets an AI agent drive interactive terminal programs (ssh, gdb,
psql, python and node REPLs, vim, htop, less) on pipes or a real pseudo-terminal, keeping them
running between calls. This package runs Portal on the Deno runtime of the \`deno\` npm package;
it downloads nothing when it runs. An MCP client's whole command:

\`\`\`sh
npx -y ${PACKAGE}
\`\`\`

For example \`claude mcp add -s user portal -- npx -y ${PACKAGE}\`.
`;

if (import.meta.main) {
  const at = Deno.args.indexOf("--out");
  const path = await pack(at >= 0 ? Deno.args[at + 1] : `${ROOT}dist`);
  const { size } = await Deno.stat(path);
  console.error(`${(size / 1e6).toFixed(2)} MB`);
  console.log(path);
}
