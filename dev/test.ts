/**
 * The suite, as `deno task test` runs it: every `*_test.ts` under tests/ (or
 * under the paths given), `DENO_JOBS` files at a time (4 unless set), the
 * largest files first. A file's size is a fair guess at how long it runs, and
 * starting the long ones first keeps one from running alone at the end while
 * the other cores idle. `DENO_JOBS=1` runs one file at a time. Other
 * arguments (`--filter NAME`, `--fail-fast`) go to `deno test`.
 *
 *     deno run -A dev/test.ts [deno test flags] [files or folders]
 *
 * @module
 */
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { existsSync } from "node:fs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The test files under `path` (a file is itself), largest first. */
export function testFiles(paths: string[]): string[] {
  const found: { path: string; size: number }[] = [];
  const visit = (path: string) => {
    const info = Deno.statSync(path);
    if (info.isFile) found.push({ path, size: info.size });
    else if (info.isDirectory) {
      for (const entry of Deno.readDirSync(path)) {
        if (entry.isDirectory || entry.name.endsWith("_test.ts")) visit(join(path, entry.name));
      }
    }
  };
  for (const path of paths) visit(path);
  return found.sort((a, b) => b.size - a.size || a.path.localeCompare(b.path))
    .map((file) => relative(ROOT, file.path) || file.path);
}

if (import.meta.main) {
  const isPath = (arg: string) => !arg.startsWith("-") && existsSync(arg);
  const flags = Deno.args.filter((arg) => !isPath(arg));
  const named = Deno.args.filter(isPath);
  const files = testFiles(named.length > 0 ? named : [join(ROOT, "tests")]);
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", "--lock=dev/deno.lock", "--parallel", ...flags, ...files],
    cwd: ROOT,
    env: { DENO_JOBS: Deno.env.get("DENO_JOBS") ?? "4" },
  }).spawn().status;
  Deno.exit(code);
}
