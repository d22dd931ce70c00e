/**
 * The house rules of CONTRIBUTING.md and docs/architecture.md, checked on
 * the code as it stands, so the house stays tidy: the layering (each room of
 * src/ imports only the rooms below it, as the table here and the map's say;
 * ffi/ nothing of src/; no cycle among rooms, nor among files, type imports
 * included: a cycle of types is a knot to read too), one module per file name
 * (per-OS pairs aside), no file of src/ or ffi/ over 600 lines, no folder of
 * src/ (but src/mcp/tools/) over 12 files, and the OS tested only in
 * src/platform.ts (ffi/libc.ts for the C library). Imports are read from the
 * text (dev/folder_graph.ts, which prints the rooms' graph); no server is
 * started.
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import {
  codeFiles,
  cycles,
  fileGraph,
  filesUnder as filesOf,
  findRoot,
  importsOf,
  roomGraph,
  roomOf,
} from "../../dev/folder_graph.ts";

/**
 * A ceiling, not a target: past it a file is two ideas. It was 400, which
 * made commits squeeze comments and statements to fit (record_store.ts's
 * module doc, saveProcess in two lines) rather than split an idea; a file of
 * 400 to 600 lines that reads as one idea is fine (CONTRIBUTING.md).
 */
const MAX_LINES = 600;
const MAX_FILES = 12;
/** A folder of one file per tool, listed by tools/index.ts: it grows with the tools. */
const UNCAPPED_FOLDERS = ["src/mcp/tools"];
const OS_DECIDERS = ["src/platform.ts", "ffi/libc.ts"];

/** The rooms of the core, below the MCP layer and everything that serves it. */
const CORE = [
  "src/core/text",
  "src/core/model",
  "src/core/pattern",
  "src/core/store",
  "src/core/recording",
  "src/core/registry",
  "src/core/policy",
  "src/core/output",
  "src/core/shell",
  "src/core/screen",
  "src/core/steps",
  "src/core/input",
  "src/core/watch",
  "src/core/process",
];
const BASE = ["ffi", "src", "src/terminal"];

/**
 * The layering (docs/architecture.md draws it): the rooms each room may
 * import, every one lower down. A room is a folder of src/ with its
 * subfolders, each folder of src/core/ one of its own; "src" is the files
 * directly in src/ (limits, errors, platform…). A new folder needs a line.
 */
const LAYERS: Record<string, string[]> = {
  "ffi": [],
  "src": ["ffi"],
  "src/terminal": ["ffi", "src"],
  "src/core/text": [],
  "src/core/model": ["src"],
  "src/core/pattern": ["src", "src/core/model"],
  "src/core/store": ["src", "src/core/model", "src/core/text"],
  "src/core/recording": ["src", "src/core/model", "src/core/store", "src/core/shell"],
  "src/core/registry": ["src", "src/core/model", "src/core/store"],
  "src/core/policy": ["src", "src/terminal", "src/core/model", "src/core/store"],
  "src/core/output": [
    "src",
    "src/terminal",
    ...["model", "pattern", "store", "text"].map((r) => `src/core/${r}`),
  ],
  "src/core/shell": ["src", "src/terminal", "src/core/model", "src/core/output", "src/core/text"],
  // The emulator's Worker lowers its own thread's priority (ffi/bulk_thread.ts).
  "src/core/screen": ["ffi", "src", "src/core/model", "src/core/store", "src/core/text"],
  "src/core/steps": [
    "src",
    "src/terminal",
    ...["model", "pattern", "store", "text", "output", "shell", "screen"].map((r) =>
      `src/core/${r}`
    ),
  ],
  "src/core/input": [
    "src",
    "src/terminal",
    ...["model", "text", "output", "shell", "steps"].map((r) => `src/core/${r}`),
  ],
  "src/core/watch": [
    "src",
    ...["model", "store", "text", "recording", "screen"].map((r) => `src/core/${r}`),
  ],
  "src/core/process": [...BASE, ...CORE.filter((room) => room !== "src/core/process")],
  "src/remote": [...BASE, ...CORE],
  "src/watch": [...BASE, ...CORE, "src/remote"],
  "src/mcp": [...BASE, ...CORE, "src/remote", "src/watch"],
  "src/host": [...BASE, ...CORE, "src/mcp"],
  "src/server": [...BASE, ...CORE, "src/remote", "src/mcp", "src/watch", "src/host"],
  "src/cli": [...BASE, ...CORE, "src/remote", "src/mcp", "src/watch", "src/host", "src/server"],
  "main.ts": [...BASE, ...CORE, "src/cli"],
};

const ROOT = findRoot(dirname(new URL(import.meta.url).pathname));
const filesUnder = (dir: string) => filesOf(ROOT, dir);
const read = (path: string) => Deno.readTextFileSync(`${ROOT}/${path}`);
const lineCount = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
const CODE = codeFiles(ROOT).filter((path) => path !== "main.ts");
const GRAPH = fileGraph(ROOT, codeFiles(ROOT));

Deno.test("the layering is a table of rooms, each above the rooms it may import", () => {
  const table = new Map(Object.entries(LAYERS));
  assert.deepEqual(cycles(table).map((cycle) => cycle.join(" <-> ")), []);
  const unknown = Object.values(LAYERS).flat().filter((room) => !table.has(room));
  assert.deepEqual([...new Set(unknown)], []);
});

Deno.test("each room imports only the rooms below it", () => {
  const against: string[] = [];
  for (const [room, edges] of roomGraph(GRAPH)) {
    const allowed = LAYERS[room];
    if (allowed === undefined) {
      against.push(`${room} is in no layer: give it a line in LAYERS and docs/architecture.md`);
      continue;
    }
    for (const [to, imports] of edges) {
      if (!allowed.includes(to)) {
        against.push(`${room} may not import ${to}: ${imports.join(", ")}`);
      }
    }
  }
  assert.deepEqual(against, []);
});

Deno.test("the rooms import one another without a cycle", () => {
  const rooms = new Map([...roomGraph(GRAPH)].map(([room, edges]) => [room, [...edges.keys()]]));
  assert.deepEqual(cycles(rooms).map((cycle) => cycle.join(" <-> ")), []);
});

Deno.test("ffi/ imports nothing of src/", () => {
  const reaches = [...GRAPH].filter(([path]) => path.startsWith("ffi/"))
    .flatMap(([path, imports]) => imports.map((to) => [path, to]))
    .filter(([, to]) => !to.startsWith("ffi/"))
    .map(([from, to]) => `${from} imports ${to}`);
  assert.deepEqual(reaches, []);
});

Deno.test("no two modules have one file name (a POSIX and a Windows twin aside)", () => {
  const byName = new Map<string, string[]>();
  for (const path of CODE) {
    const name = path.split("/").at(-1)!;
    byName.set(name, [...byName.get(name) ?? [], path]);
  }
  const perOs = (paths: string[]) =>
    new Set(paths.map((path) => path.replace(/\/(posix|windows)\//, "/<os>/"))).size === 1;
  const twins = [...byName].filter(([, paths]) => paths.length > 1 && !perOs(paths))
    .map(([name, paths]) => `${name}: ${paths.join(", ")} (name each for what it is)`);
  assert.deepEqual(twins, []);
});

Deno.test("no file of src/ or ffi/ is over 600 lines", () => {
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

Deno.test("src/, ffi/ and main.ts import one another without a cycle", () => {
  assert.deepEqual(cycles(GRAPH).map((cycle) => cycle.join(" <-> ")), []);
});

Deno.test("the import reader sees multi-line, type and re-exported imports, and rooms", () => {
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
  assert.deepEqual(importsOf(ROOT, "src/core/m.ts", text).sort(), [
    "src/b.ts",
    "src/core/a.ts",
    "src/core/c.ts",
    "src/core/d.ts",
  ]);
  const graph = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]);
  assert.deepEqual(cycles(graph), [["a", "b", "c"]]);
  assert.deepEqual(
    [
      "src/limits.ts",
      "src/host/attach/frames.ts",
      "src/core/store/frames/packing.ts",
      "ffi/libc.ts",
    ]
      .map(roomOf),
    ["src", "src/host", "src/core/store", "ffi"],
  );
});
