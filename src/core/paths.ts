/**
 * Where Portal keeps its files: the per-instance records database and the
 * machine-wide program registry.
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import { HAS_FILE_MODES, userDirs } from "../platform.ts";

/**
 * The records database for this server instance: `PORTAL_DB_PATH` if set,
 * else `.portal/portal-<pid>-<timestamp>.db` under the working directory, so a
 * lingering or concurrent server never shares (or locks) another's file.
 */
export function recordsDbPath(env = Deno.env.toObject()): string {
  return env.PORTAL_DB_PATH || join(Deno.cwd(), ".portal", `portal-${Deno.pid}-${Date.now()}.db`);
}

/**
 * The directory of the program registry: `PORTAL_DATA_DIR` if set, else
 * `portal/` under the user's data directory ({@link userDirs}).
 */
export function dataDir(env = Deno.env.toObject()): string {
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

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * Creates a fresh, empty file readable by its owner only (0600) and its
 * directory. A `.portal/` directory also gets a `.gitignore` of `*`, so the
 * records never show up in the user's `git status`.
 */
export function createPrivateFile(path: string): void {
  const dir = join(path, "..");
  Deno.mkdirSync(dir, { recursive: true });
  if (dir.endsWith(".portal")) {
    try {
      Deno.writeTextFileSync(join(dir, ".gitignore"), "*\n", { createNew: true });
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
  }
  for (const suffix of ["", "-wal", "-shm"]) {
    try {
      Deno.removeSync(path + suffix);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  Deno.writeFileSync(path, new Uint8Array(), { mode: 0o600 });
  if (HAS_FILE_MODES) Deno.chmodSync(path, 0o600);
}
