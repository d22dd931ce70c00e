/**
 * Where Portal keeps its files: the per-instance records database and the
 * machine-wide program registry.
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import { HAS_FILE_MODES, userDirs } from "../../platform.ts";

/**
 * Portal's per-user state directory: `portal/` under the user's state
 * directory ({@link userDirs}), never the working directory (a desktop app may
 * start the server in `/`).
 */
export function stateDir(env: Record<string, string>): string {
  return join(userDirs(env).state, "portal");
}

/** Where each server's own records database goes when none is named: `records/` in {@link stateDir}. */
export function recordsDir(env: Record<string, string>): string {
  return join(stateDir(env), "records");
}

/**
 * The records database for this server instance: `PORTAL_DB_PATH` if set,
 * else a new `portal-<pid>-<ms>.db` in {@link recordsDir}, so concurrent
 * servers never share one. Old ones are removed after the retention period
 * (`database_file.ts`).
 */
export function recordsDbPath(env: Record<string, string>): string {
  return env.PORTAL_DB_PATH || join(recordsDir(env), `portal-${Deno.pid}-${Date.now()}.db`);
}

/**
 * The records database of this user's host: `PORTAL_DB_PATH` if set, else
 * `portal.db` in {@link recordsDir}. One file for every client of the user
 * (a host serves one database; a door that names another reaches another host).
 */
export function userDbPath(env: Record<string, string>): string {
  return env.PORTAL_DB_PATH || join(recordsDir(env), "portal.db");
}

/**
 * The directory of the program registry: `PORTAL_DATA_DIR` if set, else
 * `portal/` under the user's data directory ({@link userDirs}).
 */
export function dataDir(env: Record<string, string>): string {
  return env.PORTAL_DATA_DIR || join(userDirs(env).data, "portal");
}

/**
 * Creates `dir` and its missing parents owner-only (0700). A directory that
 * already exists is left as it is: it may be shared (`/tmp`) or not ours.
 */
export function createPrivateDir(dir: string): void {
  const missing: string[] = [];
  for (let d = resolve(dir); !exists(d); d = dirname(d)) missing.unshift(d);
  for (const d of missing) {
    Deno.mkdirSync(d, { recursive: true, mode: 0o700 });
    // mkdir's mode passes through the umask; the directory must end up exactly 0700.
    if (HAS_FILE_MODES) Deno.chmodSync(d, 0o700);
  }
}

/** Makes `path` an owner-only (0600) file, creating it empty if missing; its content stays. */
export function ensurePrivateFile(path: string): void {
  try {
    Deno.writeFileSync(path, new Uint8Array(), { createNew: true, mode: 0o600 });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  if (HAS_FILE_MODES) Deno.chmodSync(path, 0o600);
}

/** Whether `path` exists; an error other than "not found" (no permission, say) is thrown. */
function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
