/**
 * Every `PORTAL_*` variable Portal reads, declared once: its name, how its
 * value is parsed, its default and one line of help. `--help`, `portal
 * doctor` and docs/environment.md are made from this table
 * (tests/e2e/docs_test.ts checks the page and that src/ reads no other).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   ENV_VARS,
 *   MAX_OUTPUT_BYTES,
 *   MAX_SESSIONS,
 *   readVar,
 *   RETENTION_DAYS,
 *   SESSION_IDLE_S,
 *   TASK_AFTER_MS,
 * } from "./env_vars.ts";
 *
 * assert.ok(ENV_VARS.some((v) => v.name === "PORTAL_TOKEN" && v.secret));
 * assert.equal(readVar(MAX_OUTPUT_BYTES, { PORTAL_MAX_OUTPUT_BYTES: "1048576" }), 1 << 20);
 * assert.throws(() => readVar(MAX_OUTPUT_BYTES, { PORTAL_MAX_OUTPUT_BYTES: "64M" }));
 * assert.equal(readVar(RETENTION_DAYS, {}), 7);
 * assert.equal(readVar(RETENTION_DAYS, { PORTAL_RETENTION_DAYS: "0.5" }), 0.5);
 * assert.throws(() => readVar(RETENTION_DAYS, { PORTAL_RETENTION_DAYS: "a week" }));
 * assert.deepEqual([readVar(SESSION_IDLE_S, {}), readVar(MAX_SESSIONS, {})], [1800, 64]);
 * assert.throws(() => readVar(MAX_SESSIONS, { PORTAL_MAX_SESSIONS: "0" }));
 * assert.equal(readVar(TASK_AFTER_MS, {}), 3000);
 * assert.throws(() => readVar(TASK_AFTER_MS, { PORTAL_TASK_AFTER_MS: "2147483648" }));
 * ```
 * @module
 */
import {
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_RETENTION_DAYS,
  DEFAULT_SESSION_IDLE_S,
  MAX_TIMEOUT_MS,
  TASKS,
} from "./limits.ts";

type Env = Record<string, string | undefined>;

/** One variable: `parse` gets its trimmed value (undefined when unset or empty) and throws on a bad one. */
export interface EnvVar<T = unknown> {
  /** The name, or a prefix ending in `*` for a family (`PORTAL_SECRET_*`). */
  name: string;
  /** The default, as a person reads it. */
  default: string;
  /** One line: what it does. */
  help: string;
  /** Its value is a secret: shown by no report, its length at most. */
  secret?: boolean;
  parse(raw: string | undefined): T;
}

/** A value taken as it is (a path, a token); unset stays undefined. */
const text = (raw: string | undefined) => raw;

/** A whole number, `min` to `max`; unset is `fallback`. */
function whole(
  name: string,
  fallback: number,
  min: number,
  unit: string,
  max = Number.MAX_SAFE_INTEGER,
) {
  const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `${min} to ${max}`;
  return (raw: string | undefined): number => {
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      throw new Error(`${name} must be a whole number of ${unit}, ${range}, not "${raw}"`);
    }
    return Number(raw);
  };
}

const table: EnvVar[] = [];
/** Every variable, in the order `--help` and docs/environment.md list them: as declared below. */
export const ENV_VARS: readonly EnvVar[] = table;

/** `variable`, added to {@link ENV_VARS}. */
function listed<T>(variable: EnvVar<T>): EnvVar<T> {
  table.push(variable);
  return variable;
}

export const DB_PATH: EnvVar<string | undefined> = listed({
  name: "PORTAL_DB_PATH",
  default: "the host's `records/portal.db` in Portal's state directory (`--no-host`, `--http`: " +
    "a new `records/portal-<pid>-<ms>.db` per server)",
  help: "The records database; `--db` wins over it.",
  parse: text,
});

export const DATA_DIR: EnvVar<string | undefined> = listed({
  name: "PORTAL_DATA_DIR",
  default: "`portal/` in the user's data directory",
  help: "The program registry's directory (`programs.db`); `--data-dir` wins over it.",
  parse: text,
});

export const NO_HOST: EnvVar<boolean> = listed({
  name: "PORTAL_NO_HOST",
  default: "unset",
  help: "`1`: serve stdio in the one process the client started, without the host (`--no-host`).",
  parse: (raw) => raw === "1",
});

export const POLICY: EnvVar<string | undefined> = listed({
  name: "PORTAL_POLICY",
  default: "none: programs have the user's full rights",
  help: "A person's rules for every program (a JSON or TOML file; docs/policy.md); " +
    "`--policy` wins over it.",
  parse: text,
});

export const MAX_OUTPUT_BYTES: EnvVar<number> = listed({
  name: "PORTAL_MAX_OUTPUT_BYTES",
  default: `${DEFAULT_MAX_OUTPUT_BYTES} (${DEFAULT_MAX_OUTPUT_BYTES >> 20} MiB)`,
  help: "Bytes of records kept per process before the oldest are dropped; `0`: no cap.",
  parse: whole("PORTAL_MAX_OUTPUT_BYTES", DEFAULT_MAX_OUTPUT_BYTES, 0, "bytes (0 = no cap)"),
});

export const RETENTION_DAYS: EnvVar<number> = listed({
  name: "PORTAL_RETENTION_DAYS",
  default: `${DEFAULT_RETENTION_DAYS}`,
  help: "Days an ended server's records database stays in `records/`; `0`: until the next start.",
  parse(raw) {
    if (raw === undefined) return DEFAULT_RETENTION_DAYS;
    if (!/^\d+(\.\d+)?$/.test(raw)) {
      throw new Error(`PORTAL_RETENTION_DAYS must be a number of days (0 or more), not "${raw}"`);
    }
    return Number(raw);
  },
});

export const TOKEN: EnvVar<string | undefined> = listed({
  name: "PORTAL_TOKEN",
  default: "a new random token at each start, printed on stderr",
  help: "With `--http`: the bearer token every request must send.",
  secret: true,
  parse: text,
});

export const SESSION_IDLE_S: EnvVar<number> = listed({
  name: "PORTAL_SESSION_IDLE_S",
  default: `${DEFAULT_SESSION_IDLE_S} (${DEFAULT_SESSION_IDLE_S / 60} minutes)`,
  help: "With `--http`: a session with no request open this many seconds ends; `0`: never.",
  parse: whole("PORTAL_SESSION_IDLE_S", DEFAULT_SESSION_IDLE_S, 0, "seconds"),
});

export const MAX_SESSIONS: EnvVar<number> = listed({
  name: "PORTAL_MAX_SESSIONS",
  default: `${DEFAULT_MAX_SESSIONS}`,
  help: "With `--http`: sessions at once; past it the one idle the longest ends (`503` if all " +
    "are busy).",
  parse: whole("PORTAL_MAX_SESSIONS", DEFAULT_MAX_SESSIONS, 1, "sessions"),
});

export const TASK_AFTER_MS: EnvVar<number> = listed({
  name: "PORTAL_TASK_AFTER_MS",
  default: `${TASKS.afterMs} (${TASKS.afterMs / 1000} s)`,
  help: "A wait this long of a client that declares MCP tasks becomes a task (docs/protocol.md).",
  // A timer beyond setTimeout's limit would fire at once.
  parse: whole("PORTAL_TASK_AFTER_MS", TASKS.afterMs, 1, "milliseconds", MAX_TIMEOUT_MS),
});

export const SECRET_ENV: EnvVar<string[]> = listed({
  name: "PORTAL_SECRET_ENV",
  default: "none",
  help: "Names (comma-separated) of variables that are secrets: `secret_env` may type only those.",
  parse: (raw) => (raw ?? "").split(",").map((name) => name.trim()).filter((name) => name !== ""),
});

export const SECRET_FAMILY: EnvVar<string | undefined> = listed({
  name: "PORTAL_SECRET_*",
  default: "none",
  help: "Every variable so named is a secret too.",
  secret: true,
  parse: text,
});

export const SSH_COMMAND: EnvVar<string> = listed({
  name: "PORTAL_SSH_COMMAND",
  default: "`ssh`",
  help:
    "The ssh that reaches a process_start `machine` (split like GIT_SSH_COMMAND: `ssh -F FILE`); " +
    "docs/remote.md.",
  parse: (raw) => raw ?? "ssh",
});

export const REMOTE_COMMAND: EnvVar<string | undefined> = listed({
  name: "PORTAL_REMOTE_COMMAND",
  default: "`portal` on that PATH, else `~/.local/bin/portal`",
  help: "What ssh runs on a `machine`: its Portal (e.g. `/opt/portal/bin/portal`).",
  parse: (raw) => raw,
});

export const REMOTE_INSTALL: EnvVar<boolean> = listed({
  name: "PORTAL_REMOTE_INSTALL",
  default: "unset",
  help: "`auto`: a process_start `machine` with no Portal gets one at first use, as " +
    "`portal remote install MACHINE` does (a person's setting; docs/remote.md).",
  parse: (raw) => raw === "auto",
});

export const MACHINE_FAMILY: EnvVar<string | undefined> = listed({
  name: "PORTAL_MACHINE_*",
  default: "none",
  help: '`PORTAL_MACHINE_web=docker exec -i web portal`: `machine: "web"` runs that command, ' +
    "not ssh.",
  parse: text,
});

export const HOST_FAMILY: EnvVar<string | undefined> = listed({
  name: "PORTAL_HOST_*",
  default: "none",
  help: "Deprecated: use `PORTAL_MACHINE_*` (read when that is unset).",
  parse: text,
});

export const REMOTE_UNREACHABLE_S: EnvVar<number> = listed({
  name: "PORTAL_REMOTE_UNREACHABLE_S",
  default: "600 (10 minutes)",
  help: "A machine silent this long no longer keeps the host up for its kept programs " +
    "(docs/remote.md).",
  parse: whole("PORTAL_REMOTE_UNREACHABLE_S", 600, 1, "seconds", MAX_TIMEOUT_MS / 1000),
});

/** The table's entry for `name`: its own, or its family's (`PORTAL_SECRET_DB`). */
export function envVar(name: string): EnvVar | undefined {
  return ENV_VARS.find((v) => v.name === name) ??
    ENV_VARS.find((v) => v.name.endsWith("*") && name.startsWith(v.name.slice(0, -1)));
}

/** `variable`'s value in `env`, parsed; throws on a bad one with a message naming it. */
export function readVar<T>(variable: EnvVar<T>, env: Env = Deno.env.toObject()): T {
  return variable.parse(env[variable.name]?.trim() || undefined);
}

/** The flags that stand for a variable: `--db`, `--data-dir`, `--policy`. */
export interface PathFlags {
  db?: string;
  dataDir?: string;
  policy?: string;
}

/**
 * The environment with the path flags applied: `--db` and `--data-dir` mean
 * exactly what `PORTAL_DB_PATH` and `PORTAL_DATA_DIR` mean, and win over them.
 */
export function withPathFlags(
  flags: PathFlags,
  env: Record<string, string>,
): Record<string, string> {
  const set: Record<string, string> = {};
  if (flags.db !== undefined) set[DB_PATH.name] = flags.db;
  if (flags.dataDir !== undefined) set[DATA_DIR.name] = flags.dataDir;
  if (flags.policy !== undefined) set[POLICY.name] = flags.policy;
  return { ...env, ...set };
}
