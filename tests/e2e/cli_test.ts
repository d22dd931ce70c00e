import denoJson from "../../deno.json" with { type: "json" };
import { Portal } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";
import { FLAGS } from "../../src/cli/args.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { listTree, runCli } from "../helpers/cli.ts";
import { posixTest } from "../helpers/platform.ts";

/** The default database path, not the one the test harness sets. */
const DEFAULT_PATHS = { PORTAL_DB_PATH: "" };

Deno.test("--help prints every flag, variable and file on stdout, and creates nothing", async () => {
  for (const flag of ["--help", "-h"]) {
    await using dir = await tempDir();
    const run = await runCli(dir.path, [flag], DEFAULT_PATHS);
    assertEquals([run.code, run.stderr], [0, ""]);
    assertMatch(run.stdout, /^Portal \d+\.\d+\.\d+: /);
    for (const { names } of FLAGS) assertStringIncludes(run.stdout, names[0]);
    for (
      const word of [
        "doctor",
        "PORTAL_DB_PATH",
        "PORTAL_DATA_DIR",
        "PORTAL_MAX_OUTPUT_BYTES",
        "PORTAL_RETENTION_DAYS",
        "PORTAL_TOKEN",
        "PORTAL_SESSION_IDLE_S",
        "PORTAL_MAX_SESSIONS",
        "PORTAL_SECRET_ENV",
        "PORTAL_SECRET_*",
        "No program Portal starts sees a secret, PORTAL_TOKEN or any PORTAL_* variable.",
      ]
    ) {
      assertStringIncludes(run.stdout, word);
    }
    assertStringIncludes(run.stdout, `${dir.path}/data/programs.db`);
    // serverEnv made home/; nothing else may appear (no .portal/, no database, no registry).
    assertEquals(await listTree(dir.path), ["home"]);
  }
});

Deno.test("--version prints deno.json's version and creates nothing", async () => {
  for (const flag of ["--version", "-V"]) {
    await using dir = await tempDir();
    const run = await runCli(dir.path, [flag], DEFAULT_PATHS);
    assertEquals(run, { code: 0, stdout: `portal ${denoJson.version}\n`, stderr: "" });
    assertEquals(await listTree(dir.path), ["home"]);
  }
});

Deno.test("a wrong command line is an error with the usage, exit 2, and nothing served", async () => {
  const cases: [string[], RegExp][] = [
    [["--verbose"], /unknown option --verbose/],
    [["--db"], /--db needs a value/],
    [["--db="], /--db needs a non-empty PATH/],
    [["--http", "localhost"], /--http takes \[HOST:\]PORT/],
    [["--http", "70000"], /--http takes/],
    [["--log-level", "loud"], /--log-level takes one of debug, info/],
    [["--share-processes"], /--share-processes needs --http/],
    [["--share-processes=yes", "--http", "1"], /takes no value/],
    [["doctor", "--http", "8080"], /--http does not apply to doctor/],
    [["serve"], /unexpected argument "serve"/],
  ];
  await using dir = await tempDir();
  for (const [args, message] of cases) {
    const run = await runCli(dir.path, args, DEFAULT_PATHS);
    assertEquals([run.code, run.stdout], [2, ""], args.join(" "));
    assertMatch(run.stderr, message);
    assertStringIncludes(run.stderr, "Usage:");
  }
  assertEquals(await listTree(dir.path), ["home"]);
});

posixTest("doctor runs tty on a terminal and reports directories and database", async () => {
  await using dir = await tempDir();
  const db = `${dir.path}/db/records.db`;
  const run = await runCli(dir.path, ["doctor", "--db", db, "--data-dir", `${dir.path}/reg`]);
  assertEquals([run.code, run.stderr], [0, ""], run.stdout);
  assertMatch(run.stdout, /^terminal +ok +a pseudo-terminal ran tty, which printed "\/dev\/\S+"/m);
  assertMatch(run.stdout, new RegExp(`^data dir +ok +${dir.path}/reg .*not created yet`, "m"));
  assertMatch(run.stdout, /^state dir +ok /m);
  assertMatch(run.stdout, new RegExp(`^database +ok +${db} \\(SQLite \\d`, "m"));
  assertMatch(run.stdout, new RegExp(`^deno +${Deno.version.deno} `, "m"));
  assertMatch(run.stdout, /^Everything Portal needs works\.$/m);
  // Looking is all it does: the registry and database directories are still not there.
  assertEquals(await listTree(dir.path), ["home"]);
});

posixTest("doctor fails, exit 1, when the database cannot be made", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/file`, "");
  const run = await runCli(dir.path, ["doctor", "--db", `${dir.path}/file/records.db`]);
  assertEquals(run.code, 1, run.stdout);
  assertMatch(run.stdout, /^database +FAIL +/m);
  assertMatch(run.stdout, /^Some checks failed/m);
});

posixTest("a database that cannot be made: a clear error and exit 1, not a stack", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/file`, "");
  const run = await runCli(dir.path, ["--db", `${dir.path}/file/records.db`]);
  assertEquals([run.code, run.stdout], [1, ""]);
  assertMatch(run.stderr, /^portal: cannot start: .*file.*`portal doctor` checks/m);
  assert(!run.stderr.includes("    at "), run.stderr);
});

posixTest("the stdio server says on stderr what it serves and where its database is", async () => {
  {
    await using portal = await Portal.start({ captureStderr: true });
    const line = new RegExp(
      `^portal ${denoJson.version} serving MCP on stdio through its host \\(pid ${portal.serverPid}, ` +
        `${portal.dir}/run/portal/host-${denoJson.version}-[0-9a-f]{16}\\.sock\\), ` +
        "which reads stdin and writes stdout itself; " +
        `records database ${portal.dbPath}$`,
      "m",
    );
    await waitFor("the startup line", () => portal.stderr, { until: (text) => line.test(text) });
  }
  await using portal = await Portal.start({ captureStderr: true, noHost: true });
  const line =
    `portal ${denoJson.version} serving MCP on stdio; records database ${portal.dbPath}\n`;
  await waitFor("the startup line", () => portal.stderr, { until: (text) => text.includes(line) });
});

posixTest("--db and --data-dir win over PORTAL_DB_PATH and PORTAL_DATA_DIR", async () => {
  await using dir = await tempDir();
  const db = `${dir.path}/flag.db`;
  await using portal = await Portal.start({
    captureStderr: true,
    args: ["--db", db, `--data-dir=${dir.path}/registry`],
  });
  await portal.call("program_record", { program: "gdb", needs_pty: true });
  await waitFor("the startup line", () => portal.stderr, {
    until: (text) => text.includes(`records database ${db}\n`),
  });
  assert((await Deno.stat(db)).isFile);
  assert((await Deno.stat(`${dir.path}/registry/programs.db`)).isFile);
  // The variables' paths (set by the harness) stay unused.
  await assertMissing(portal.dbPath);
  await assertMissing(`${portal.dir}/data`);
});

async function assertMissing(path: string): Promise<void> {
  const found = await Deno.stat(path).then(() => true, () => false);
  assert(!found, `${path} should not exist`);
}
