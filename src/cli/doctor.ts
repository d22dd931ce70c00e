/**
 * `portal doctor`: checks what Portal needs on this machine and prints what it
 * found, for the user and for bug reports. It opens a real pseudo-terminal and
 * runs a program on it (`tty`), looks at the directories and the database
 * without creating them (the only file it writes is a probe, removed at once),
 * and reads every `PORTAL_*` variable set as a server would (src/env_vars.ts).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { doctor } from "./doctor.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const report = await doctor({ PORTAL_DB_PATH: `${dir}/r.db`, PORTAL_DATA_DIR: dir });
 * assert.match(report.text, /database +ok/);
 * await Deno.remove(dir, { recursive: true });
 * ```
 * @module
 */
import { existsSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { dirname } from "node:path";
import { dataDir, stateDir, userDbPath } from "../core/store/paths.ts";
import { ProcessManager } from "../core/process/manager.ts";
import { ProcessPool } from "../core/process/pool.ts";
import { portalPlace } from "../core/policy/sandbox_rules.ts";
import { RecordStore } from "../core/store/record_store.ts";
import { describeRecordsFile } from "../core/store/database_file.ts";
import { envVar } from "../env_vars.ts";
import { VERSION } from "../version.ts";
import { TERMINAL_PROBE } from "../platform.ts";
import { policyReport } from "./policy_option.ts";

/** How long the terminal probe may take before doctor calls the terminal broken. */
const PROBE_DEADLINE_MS = 10_000;

/** One line of the report; a line without `ok` states a fact and checks nothing. */
interface Check {
  name: string;
  ok?: boolean;
  detail: string;
}

/** Runs every check with the paths `env` (the environment and path flags) resolves. */
export async function doctor(env: Record<string, string>): Promise<{ ok: boolean; text: string }> {
  const checks: Check[] = [
    info("portal", `${VERSION} (${Deno.build.standalone ? "compiled binary" : "deno run"})`),
    info("platform", Deno.build.target),
    info(
      "deno",
      `${Deno.version.deno} (V8 ${Deno.version.v8}, TypeScript ${Deno.version.typescript})`,
    ),
    info("executable", Deno.execPath()),
    await terminalCheck(),
    directoryCheck("data dir", dataDir(env), "programs.db, the program registry"),
    directoryCheck("state dir", stateDir(env), "records/, the host's records database"),
    databaseCheck(userDbPath(env)),
    ...variableChecks(env),
    { name: "policy", ...policyReport(env) },
  ];
  const ok = checks.every((check) => check.ok !== false);
  const width = Math.max(...checks.map((check) => check.name.length)) + 2;
  const mark = (check: Check) => check.ok === undefined ? "" : check.ok ? "ok" : "FAIL";
  const lines = checks.map((check) =>
    `${check.name.padEnd(width)}${mark(check).padEnd(6)}${check.detail}`
  );
  lines.push("", ok ? "Everything Portal needs works." : "Some checks failed (FAIL above).");
  return { ok, text: lines.join("\n") };
}

function info(name: string, detail: string): Check {
  return { name, detail };
}

/** Starts the probe on a new terminal through the same code a tool call uses, and reads it. */
async function terminalCheck(): Promise<Check> {
  const name = "terminal";
  const place = portalPlace(Deno.env.toObject(), ":memory:");
  const manager = new ProcessManager(new ProcessPool(new RecordStore(":memory:"), place));
  try {
    const done = await manager.start({
      ...TERMINAL_PROBE,
      pty: true,
      wait: "exit",
      wait_ms: PROBE_DEADLINE_MS,
    });
    if (done.reason !== "exit") {
      return { name, ok: false, detail: `${TERMINAL_PROBE.command} did not end within 10 s` };
    }
    const { exit_code } = done;
    const output = (done.output ?? "").trim();
    const ran = `a pseudo-terminal ran ${TERMINAL_PROBE.command}, which printed "${output}"`;
    return { name, ok: exit_code === 0 && output !== "", detail: `${ran} (exit ${exit_code})` };
  } catch (error) {
    return { name, ok: false, detail: (error as Error).message };
  } finally {
    await manager.shutdown();
  }
}

/** A directory Portal creates when it needs it. */
function directoryCheck(name: string, path: string, holds: string): Check {
  const { ok, detail } = writableDir(path);
  return { name, ok, detail: `${path} (${holds}): ${detail}` };
}

/**
 * The records database: where it goes, what is there now (nothing, a Portal
 * database, or a file a server would refuse), whether it can be made there,
 * and SQLite's version.
 */
function databaseCheck(path: string): Check {
  const db = new DatabaseSync(":memory:");
  const { version } = db.prepare("SELECT sqlite_version() AS version").get() as { version: string };
  db.close();
  const file = describeRecordsFile(path);
  const dir = writableDir(dirname(path));
  return {
    name: "database",
    ok: file.ok && dir.ok,
    detail: `${path} (SQLite ${version}): ${file.detail}; directory ${dir.detail}`,
  };
}

/**
 * Each `PORTAL_*` variable set: its value as Portal reads it (a secret's
 * length only), a FAIL when a server would refuse it, and a note for a name
 * Portal does not read (a misspelling is otherwise silently ignored).
 */
function variableChecks(env: Record<string, string>): Check[] {
  return Object.keys(env).filter((name) => name.startsWith("PORTAL_")).sort().map((name) => {
    const variable = envVar(name);
    const value = env[name];
    if (!variable) return info(name, "not a variable Portal reads (portal --help lists them)");
    const shown = variable.secret ? `set (${value.length} characters)` : JSON.stringify(value);
    try {
      variable.parse(value.trim() || undefined);
      return { name, ok: true, detail: shown };
    } catch (error) {
      return { name, ok: false, detail: (error as Error).message };
    }
  });
}

/** Whether files can be made in `dir`: it is there and writable, or it can be created. */
function writableDir(dir: string): { ok: boolean; detail: string } {
  const existing = nearestExisting(dir);
  const writable = canWrite(existing);
  const state = writable === true ? "writable" : `not writable (${writable})`;
  return {
    ok: writable === true,
    detail: existing === dir ? state : `not created yet; ${existing} is ${state}`,
  };
}

function nearestExisting(path: string): string {
  let dir = path;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** True, or why not: writes a probe file into `dir` and removes it. */
function canWrite(dir: string): true | string {
  try {
    const probe = Deno.makeTempFileSync({ dir, prefix: ".portal-doctor-" });
    Deno.removeSync(probe);
    return true;
  } catch (error) {
    return (error as Error).message;
  }
}
