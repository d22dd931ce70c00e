/**
 * Runs every command the documentation shows that can run here: each fenced
 * block marked `sh run` in README.md, CONTRIBUTING.md, llms-install.md and
 * docs/**, with bash (`-euo pipefail`), from the repository's root, as a
 * newcomer would, but with a home and a runtime directory of its own (so its
 * host is its own, ended after each block) and Deno's cache as it is. `.ci/run`
 * runs it; a block that fails or outlives its deadline fails the run.
 *
 *     deno run -A dev/doc_commands.ts            # every block
 *     deno run -A dev/doc_commands.ts README.md  # the blocks of one page
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { pages } from "./check_links.ts";
import { denoDir, endHost, runtimeDirOf } from "./portal_client.ts";
import { tempDir } from "./temp_dir.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** How long one block may run: npx may download Deno or the Inspector first. */
const BLOCK_DEADLINE_MS = 300_000;

/** The `sh run` blocks of a page's text, each with the line it starts on. */
export function runnableBlocks(text: string): { line: number; script: string }[] {
  const blocks: { line: number; script: string }[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!/^```sh run\s*$/.test(lines[i])) continue;
    const end = lines.findIndex((line, j) => j > i && /^```\s*$/.test(line));
    if (end < 0) throw new Error(`line ${i + 1}: a block that never ends`);
    blocks.push({ line: i + 1, script: lines.slice(i + 1, end).join("\n") });
    i = end;
  }
  return blocks;
}

/** Runs one block; returns its exit code (124 past the deadline) and what it printed. */
async function run(script: string, cache: string): Promise<{ code: number; output: string }> {
  await using dir = await tempDir("portal-doc-commands-");
  await Deno.mkdir(`${dir.path}/home`);
  await Deno.mkdir(runtimeDirOf(dir.path), { mode: 0o700 });
  const env = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([name]) =>
      !name.startsWith("XDG_") && !name.startsWith("PORTAL_")
    ),
  );
  const child = new Deno.Command("bash", {
    args: ["-euo", "pipefail", "-c", script],
    cwd: ROOT,
    clearEnv: true,
    env: {
      ...env,
      HOME: `${dir.path}/home`,
      XDG_RUNTIME_DIR: runtimeDirOf(dir.path),
      DENO_DIR: cache,
      // npm's cache stays the user's, as Deno's does: each block need not download npx's packages.
      npm_config_cache: Deno.env.get("npm_config_cache") ?? `${Deno.env.get("HOME")}/.npm`,
      NO_COLOR: "1",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), BLOCK_DEADLINE_MS);
  try {
    const { code, stdout, stderr } = await child.output();
    const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return { code: code === 137 ? 124 : code, output: text(stdout) + text(stderr) };
  } finally {
    clearTimeout(timer);
    await endHost(dir.path);
  }
}

if (import.meta.main) {
  const cache = await denoDir();
  const chosen = Deno.args.length > 0 ? Deno.args : await pages();
  let failed = 0;
  let ran = 0;
  for (const page of chosen) {
    for (const block of runnableBlocks(await Deno.readTextFile(`${ROOT}${page}`))) {
      ran++;
      console.log(`== ${page}:${block.line}\n${block.script}`);
      const { code, output } = await run(block.script, cache);
      if (code === 0) {
        console.log("ok");
      } else {
        failed++;
        console.log(`${output.trimEnd()}\nFAILED (exit ${code})`);
      }
    }
  }
  console.log(`${ran - failed} of ${ran} documented command blocks ran`);
  if (failed > 0) Deno.exit(1);
}
