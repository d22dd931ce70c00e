/**
 * The folder graph of src/ and ffi/: which room imports which, and the
 * cycles among them. A room is a folder of src/ with its subfolders (each
 * folder of src/core/ a room of its own), the files directly in src/ (the
 * base: "src"), or ffi/. tests/unit/house_test.ts checks this graph against
 * the layering of docs/architecture.md; run this to see it:
 *
 * ```sh
 * deno run -A dev/folder_graph.ts          # every room and the rooms it imports; the cycles
 * deno run -A dev/folder_graph.ts --why    # and, for each edge, the imports behind it
 * ```
 *
 * Imports are read from the text (`import … from "./x.ts"` and `export …
 * from` at the start of a line; type imports count); nothing is loaded.
 *
 * @module
 */
import { dirname, join, relative, resolve } from "node:path";

/** The checkout's root: the nearest folder up from `dir` that holds deno.json. */
export function findRoot(dir: string): string {
  for (let at = dir; at !== dirname(at); at = dirname(at)) {
    try {
      Deno.statSync(join(at, "deno.json"));
      return at;
    } catch { /* not here: one up */ }
  }
  throw new Error(`no deno.json above ${dir}`);
}

/** Every file under `dir` of `root` (as root-relative paths), sorted. */
export function filesUnder(root: string, dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of Deno.readDirSync(join(root, at))) {
      const path = `${at}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else if (entry.isFile) found.push(path);
    }
  };
  walk(dir);
  return found.sort();
}

/** The files module `path` imports (or re-exports from), static imports only, root-relative. */
export function importsOf(root: string, path: string, text: string): string[] {
  const statement = /^(?:import|export)\b[^;]*?\bfrom\s*["'](\.{1,2}\/[^"']+)["']/gm;
  const bare = /^import\s*["'](\.{1,2}\/[^"']+)["']/gm;
  const specifiers = [...text.matchAll(statement), ...text.matchAll(bare)].map((m) => m[1]);
  return specifiers.map((s) => relative(root, resolve(root, dirname(path), s)));
}

/**
 * The room of a root-relative path: `ffi`, `src` (a file directly in src/),
 * `src/core/<folder>`, `src/<folder>`, or the path itself (main.ts, deno.json).
 */
export function roomOf(path: string): string {
  const parts = path.split("/");
  if (parts[0] === "ffi") return "ffi";
  if (parts[0] !== "src") return path;
  if (parts.length === 2) return "src";
  return parts.slice(0, parts[1] === "core" && parts.length > 3 ? 3 : 2).join("/");
}

/** The file-level import graph of `files` (root-relative paths of `root`). */
export function fileGraph(root: string, files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const path of files) {
    graph.set(path, importsOf(root, path, Deno.readTextFileSync(join(root, path))));
  }
  return graph;
}

/** The rooms each room imports, each edge with the file imports behind it. */
export function roomGraph(files: Map<string, string[]>): Map<string, Map<string, string[]>> {
  const rooms = new Map<string, Map<string, string[]>>();
  for (const [from, imports] of files) {
    const edges = rooms.get(roomOf(from)) ?? new Map<string, string[]>();
    rooms.set(roomOf(from), edges);
    for (const to of imports) {
      if (roomOf(to) === roomOf(from) || !files.has(to)) continue;
      edges.set(roomOf(to), [...edges.get(roomOf(to)) ?? [], `${from} -> ${to}`]);
    }
  }
  return rooms;
}

/** Every cycle of the graph, one per strongly connected component of more than one node. */
export function cycles(graph: Map<string, Iterable<string>>): string[][] {
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
    if (component.length > 1 || [...graph.get(node) ?? []].includes(node)) {
      found.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

/** The TypeScript files of src/ and ffi/, and main.ts. */
export function codeFiles(root: string): string[] {
  return [...filesUnder(root, "src"), ...filesUnder(root, "ffi"), "main.ts"]
    .filter((path) => path.endsWith(".ts"));
}

if (import.meta.main) {
  const root = findRoot(dirname(new URL(import.meta.url).pathname));
  const rooms = roomGraph(fileGraph(root, codeFiles(root)));
  const why = Deno.args.includes("--why");
  for (const [room, edges] of [...rooms].sort(([a], [b]) => a.localeCompare(b))) {
    console.log(`${room} -> ${[...edges.keys()].sort().join(", ") || "(nothing)"}`);
    if (why) { for (const line of [...edges.values()].flat()) console.log(`    ${line}`); }
  }
  const knots = cycles(new Map([...rooms].map(([room, edges]) => [room, [...edges.keys()]])));
  console.log(`\ncycles: ${knots.length === 0 ? "none" : ""}`);
  for (const knot of knots) console.log(`  ${knot.join(" <-> ")}`);
}
