/**
 * The house rules of CONTRIBUTING.md and docs/architecture.md, checked on
 * the code as it stands, so the house stays tidy: no file of src/ or ffi/
 * over 400 lines, no folder of src/ (but src/mcp/tools/) over 12 files, the
 * OS tested only in src/platform.ts (ffi/libc.ts for the C library), src/host/
 * importing nothing of src/cli/, and no import cycle among src/, ffi/ and
 * main.ts (type imports count: a cycle of types is a knot to read too).
 * Imports are read from the text (`import … from "./x.ts"` and `export … from`
 * at the start of a line); no server is started.
 */
import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";

const MAX_LINES = 400;
const MAX_FILES = 12;
/** A folder of one file per tool, listed by tools/index.ts: it grows with the tools. */
const UNCAPPED_FOLDERS = ["src/mcp/tools"];
const OS_DECIDERS = ["src/platform.ts", "ffi/libc.ts"];

const ROOT = findRoot(dirname(new URL(import.meta.url).pathname));

/** The checkout's root: the nearest folder up that holds deno.json (tests/ may be split). */
function findRoot(dir: string): string {
  for (let at = dir; at !== dirname(at); at = dirname(at)) {
    try {
      Deno.statSync(join(at, "deno.json"));
      return at;
    } catch { /* not here: one up */ }
  }
  throw new Error(`no deno.json above ${dir}`);
}

/** Every file under `dir` (relative to the root), sorted. */
function filesUnder(dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of Deno.readDirSync(join(ROOT, at))) {
      const path = `${at}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else if (entry.isFile) found.push(path);
    }
  };
  walk(dir);
  return found.sort();
}

const read = (path: string) => Deno.readTextFileSync(join(ROOT, path));
const lineCount = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
const CODE = [...filesUnder("src"), ...filesUnder("ffi")].filter((p) => p.endsWith(".ts"));

/** The files a module imports (or re-exports from), static imports only, as root-relative paths. */
function importsOf(path: string, text: string): string[] {
  const statement = /^(?:import|export)\b[^;]*?\bfrom\s*["'](\.{1,2}\/[^"']+)["']/gm;
  const bare = /^import\s*["'](\.{1,2}\/[^"']+)["']/gm;
  const specifiers = [...text.matchAll(statement), ...text.matchAll(bare)].map((m) => m[1]);
  return specifiers.map((s) => relative(ROOT, resolve(ROOT, dirname(path), s)));
}

/** Every cycle of the graph, one per strongly connected component of more than one file. */
function cycles(graph: Map<string, string[]>): string[][] {
  // Tarjan's algorithm.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) {
      found.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

Deno.test("no file of src/ or ffi/ is over 400 lines", () => {
  const long = [...filesUnder("src"), ...filesUnder("ffi")]
    .map((path) => ({ path, lines: lineCount(read(path)) }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ path, lines }) => `${path}: ${lines} lines (split it by idea)`);
  assert.deepEqual(long, []);
});

Deno.test("no folder of src/ but src/mcp/tools/ holds over 12 files", () => {
  const byFolder = new Map<string, number>();
  for (const path of filesUnder("src")) {
    byFolder.set(dirname(path), (byFolder.get(dirname(path)) ?? 0) + 1);
  }
  const full = [...byFolder]
    .filter(([folder, count]) => count > MAX_FILES && !UNCAPPED_FOLDERS.includes(folder))
    .map(([folder, count]) => `${folder}/: ${count} files (give a concern a folder of its own)`);
  assert.deepEqual(full, []);
});

Deno.test("the OS is tested only in src/platform.ts and ffi/libc.ts", () => {
  const testers = [...CODE, "main.ts"]
    .filter((path) => !OS_DECIDERS.includes(path) && read(path).includes("Deno.build.os"))
    .map((path) => `${path} reads Deno.build.os: ask src/platform.ts (or ffi/libc.ts below it)`);
  assert.deepEqual(testers, []);
});

Deno.test("src/host/ imports nothing of src/cli/", () => {
  const reaches = CODE.filter((path) => path.startsWith("src/host/"))
    .flatMap((path) => importsOf(path, read(path)).map((to) => [path, to]))
    .filter(([, to]) => to.startsWith("src/cli/"))
    .map(([from, to]) => `${from} imports ${to}`);
  assert.deepEqual(reaches, []);
});

Deno.test("src/, ffi/ and main.ts import one another without a cycle", () => {
  const graph = new Map<string, string[]>();
  for (const path of [...CODE, "main.ts"]) graph.set(path, importsOf(path, read(path)));
  assert.deepEqual(cycles(graph).map((cycle) => cycle.join(" <-> ")), []);
});

Deno.test("the import reader sees multi-line, type and re-exported imports, not doc examples", () => {
  const text = [
    "/**",
    ' * import { nope } from "./example.ts";',
    " */",
    'import type { A } from "./a.ts";',
    "import {",
    "  b,",
    '} from "../b.ts";',
    'export { c } from "./c.ts";',
    'import "./d.ts";',
    'import { x } from "node:path";',
  ].join("\n");
  assert.deepEqual(importsOf("src/core/m.ts", text).sort(), [
    "src/b.ts",
    "src/core/a.ts",
    "src/core/c.ts",
    "src/core/d.ts",
  ]);
  const graph = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]);
  assert.deepEqual(cycles(graph), [["a", "b", "c"]]);
});
