/**
 * The documentation agrees with the code and with itself: the generated
 * tables (variables, clients) are up to date; every `PORTAL_*` variable the
 * code reads is declared in src/env_vars.ts, and `--help` and `doctor` know
 * each one; the README stays a front door (its tools table is the server's
 * tool list, in order); the test programs CONTRIBUTING.md lists are the
 * packages .ci/run installs; the client command lines say the same thing.
 */
import { fileURLToPath } from "node:url";
import { CLAUDE_CODE_ADD, outOfDate } from "../../dev/generated_docs.ts";
import { runnableBlocks } from "../../dev/doc_commands.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { ENV_VARS, envVar } from "../../src/env_vars.ts";
import { TOOLS } from "../../src/mcp/tools/index.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { runCli } from "../helpers/cli.ts";
import { posixTest } from "../helpers/platform.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const read = (path: string) => Deno.readTextFileSync(`${ROOT}${path}`);

Deno.test("the generated tables of the docs are up to date (dev/generated_docs.ts)", async () => {
  const stale = (await outOfDate()).map((s) => s.page);
  assertEquals(stale, [], "run `deno run -A dev/generated_docs.ts --write`");
});

Deno.test("every PORTAL_* variable the code reads is declared in src/env_vars.ts", () => {
  // Set by Portal for a zsh it starts (core/shell/injection.ts), and a SQLite header constant.
  const notVariables = new Set(["PORTAL_USER_ZDOTDIR", "PORTAL_APPLICATION_ID"]);
  const files: string[] = ["main.ts"];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(`${ROOT}${dir}`)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else if (/\.(ts|js)$/.test(entry.name)) files.push(path);
    }
  };
  walk("src");
  const undeclared = new Set<string>();
  for (const file of files) {
    for (const [name] of read(file).matchAll(/PORTAL_[A-Z_]+/g)) {
      if (!notVariables.has(name) && envVar(name) === undefined) {
        undeclared.add(`${name} (${file})`);
      }
    }
  }
  assertEquals([...undeclared], []);
});

posixTest("--help lists every variable; doctor fails on a bad value", async () => {
  await using dir = await tempDir();
  const help = await runCli(dir.path, ["--help"]);
  for (const variable of ENV_VARS) assertStringIncludes(help.stdout, `  ${variable.name}`);
  const doctor = await runCli(dir.path, ["doctor"], {
    PORTAL_MAX_SESSIONS: "0",
    PORTAL_TOKEN: "s3cret-token",
  });
  assertEquals(doctor.code, 1, doctor.stdout);
  assertMatch(doctor.stdout, /^PORTAL_MAX_SESSIONS +FAIL +PORTAL_MAX_SESSIONS must be a whole/m);
  assertMatch(doctor.stdout, /^PORTAL_TOKEN +ok +set \(12 characters\)$/m);
  assert(!doctor.stdout.includes("s3cret-token"), "doctor showed the token");
});

posixTest("--help names Deno by its path when the deno on PATH is not this one", async () => {
  await using dir = await tempDir();
  const help = await runCli(dir.path, ["--help"], { PATH: "/nonexistent" });
  assertStringIncludes(help.stdout, `\n  ${Deno.execPath()} run -A `);
});

Deno.test("the README is a front door: short, its tools table the server's tools", () => {
  const readme = read("README.md");
  const lines = readme.split("\n").length;
  assert(lines <= 250, `README.md has ${lines} lines (at most 250: the rest goes in docs/)`);
  // Its first screen shows the command that runs Portal's main job, and the one that tests it.
  const firstScreen = readme.split("\n").slice(0, 30).join("\n");
  assertMatch(firstScreen, /^deno task demo\b/m);
  assertMatch(firstScreen, /^deno task test\b/m);
  const listed = [...readme.matchAll(/^\| `([a-z_]+)` +\| /gm)].map((m) => m[1]);
  assertEquals(listed, TOOLS.map((tool) => tool.name));
});

Deno.test("CONTRIBUTING.md lists the packages .ci/run installs", () => {
  const ci = read(".ci/run").match(/^packages=\(([^)]*)\)/m)?.[1] ?? "";
  const installed = ci.split(/\s+/).filter(Boolean).sort();
  const line = read("CONTRIBUTING.md").match(/^sudo apt-get install (.*)$/m)?.[1] ?? "";
  assertEquals(line.split(" ").filter(Boolean).sort(), installed);
});

Deno.test("the client command lines agree: README, docs/clients.md, main.ts", () => {
  assertStringIncludes(read("README.md"), CLAUDE_CODE_ADD);
  assertStringIncludes(read("docs/clients.md"), CLAUDE_CODE_ADD);
  const jsr = "/home/you/.deno/bin/deno run -A jsr:@portal/mcp";
  assertStringIncludes(read("main.ts"), `claude mcp add -s user portal -- ${jsr}`);
  assertStringIncludes(read("docs/clients.md"), `\`${jsr}\``);
});

Deno.test("the docs' runnable blocks are found, and the Inspector's put the server first", () => {
  const blocks = runnableBlocks(read("docs/clients.md")).map((b) => b.script).join("\n");
  assertMatch(blocks, /inspector-cli@[\d.]+ --cli deno run -A main.ts \\?\s*--method tools\/call/);
  assert(!/ -- deno run/.test(blocks), "the server's command goes before --method, not after --");
});
