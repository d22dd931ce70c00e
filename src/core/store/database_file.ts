/**
 * The records database as a file: which file a server may use, how it keeps
 * it to itself, and when an old one goes.
 *
 * - **Identity.** A file that is there and not empty must be a Portal records
 *   database (SQLite, with Portal's `application_id` in its header); anything
 *   else is refused and left untouched. An existing Portal database is opened
 *   and kept, its records with it.
 * - **One server per file.** The server holds an exclusive lock (`flock` on
 *   POSIX, `LockFileEx` on Windows, through `Deno.FsFile.tryLockSync`) on
 *   `<db>.lock` for as long as it runs; a second server is refused. The kernel
 *   drops the lock when the process ends, however it ends, so a crash never
 *   leaves the file locked. The lock is not on the database itself: SQLite's
 *   own locks on it are fcntl locks, which flock locks would meet on macOS and
 *   byte-range locks would block on Windows, and people and tools may read
 *   the file while the server runs.
 * - **Old ones go.** Each server started without a path gets its own file in
 *   the records directory; files there that no live server holds and that
 *   were last written more than the retention period ago are removed.
 * - **A damaged one is said, never deleted.** A file SQLite finds malformed
 *   stops the start with {@link damageMessage}: which file, what SQLite
 *   found, and how to move it aside; `portal doctor` checks its pages.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { claimRecordsFile } from "./database_file.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const file = claimRecordsFile(`${dir}/r.db`);
 * assert.throws(() => claimRecordsFile(`${dir}/r.db`), /in use by another Portal process/);
 * file.release();
 * await Deno.writeTextFile(`${dir}/notes.txt`, "my notes");
 * assert.throws(() => claimRecordsFile(`${dir}/notes.txt`), /not a Portal records database/);
 * assert.equal(await Deno.readTextFile(`${dir}/notes.txt`), "my notes");
 * await Deno.remove(dir, { recursive: true });
 * ```
 * @module
 */
import { basename, dirname, join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { HAS_FILE_MODES } from "../../platform.ts";
import { shellQuote } from "../text/shell_quote.ts";
import { createPrivateDir, ensurePrivateFile } from "./paths.ts";
import { PORTAL_APPLICATION_ID } from "./tables.ts";

const SQLITE_MAGIC = "SQLite format 3\0";
/** Where SQLite keeps `application_id` in the header. */
const APPLICATION_ID_OFFSET = 68;
/** The files of one database and its server; the lock last: the others go while it is held. */
const COMPANIONS = ["", "-journal", "-wal", "-shm", ".watch", ".tasks", ".lock"];
/** A per-instance database in the records directory (`recordsDbPath`'s default). */
const INSTANCE_DB = /^portal-\d+-\d+\.db$/;
/** SQLite's primary result codes for a damaged file: SQLITE_CORRUPT and SQLITE_NOTADB. */
const DAMAGE_CODES = new Set([11, 26]);
/** ...and its words for them, for errors that come without a code. */
const DAMAGE_WORDS = /disk image is malformed|file is not a database/;

/** A records database this server holds: release it when the store is closed. */
export interface RecordsFile {
  readonly path: string;
  /** Whether the file held a Portal database before (a restart), not a new one. */
  readonly existed: boolean;
  release(): void;
}

/**
 * Makes `path` this server's records database: refuses a file that is not a
 * Portal database and one another live server holds (each with a message
 * that says what to do), creates what is missing owner-only (0700
 * directories, a 0600 file), and locks it until {@link RecordsFile.release}.
 */
export function claimRecordsFile(path: string): RecordsFile {
  const existed = checkIdentity(path);
  createPrivateDir(dirname(path));
  const lock = lockFile(path);
  try {
    ensurePrivateFile(path);
    return {
      path,
      existed,
      release: () => {
        // Unlinked while still locked: a server that opened it meanwhile sees the swap.
        try {
          removeIfPresent(`${path}.lock`);
        } catch {
          // Windows may refuse to remove an open file: it stays, unlocked, harmless.
        }
        lock.close();
      },
    };
  } catch (error) {
    lock.close();
    throw error;
  }
}

/**
 * Removes from `dir` the per-instance databases (with their journals and
 * locks) that no live server holds and that nothing wrote for `maxAgeMs`,
 * except `keep` (the one this server is about to open); returns the databases
 * removed. A file it cannot remove is left for later.
 */
export function removeOldRecords(
  dir: string,
  maxAgeMs: number,
  options: { keep?: string } = {},
): string[] {
  const { keep } = options;
  const now = Date.now();
  let names: string[];
  try {
    names = [...Deno.readDirSync(dir)].map((entry) => entry.name);
  } catch {
    return []; // No directory yet: nothing to remove.
  }
  const removed: string[] = [];
  const bases = new Set(names.map(baseName).filter((name) => INSTANCE_DB.test(name)));
  for (const base of bases) {
    const path = join(dir, base);
    if (keep !== undefined && resolve(path) === resolve(keep)) continue;
    const written = Math.max(...COMPANIONS.map((suffix) => modified(path + suffix)));
    if (now - written < maxAgeMs) continue;
    let lock: Deno.FsFile;
    try {
      lock = lockFile(path);
    } catch {
      continue; // A live server holds it (or it cannot be opened): keep it.
    }
    try {
      for (const suffix of COMPANIONS) removeIfPresent(path + suffix);
      removed.push(path);
    } catch {
      // Not ours to remove after all (permissions): left as it is.
    } finally {
      lock.close();
    }
  }
  return removed;
}

/**
 * The message for `error` when it says that the database at `path` is
 * damaged (a malformed page), else undefined. Portal deletes nothing: the
 * message says how to move the file aside, and a new one is made in its place.
 */
export function damageMessage(path: string, error: unknown): string | undefined {
  const { errcode, message } = (error ?? {}) as { errcode?: unknown; message?: unknown };
  const coded = typeof errcode === "number" && DAMAGE_CODES.has(errcode & 0xff);
  if (!coded && !DAMAGE_WORDS.test(String(message))) return undefined;
  const file = shellQuote(path);
  return `the records database ${path} is damaged (SQLite says: ${message}). Portal deletes ` +
    `nothing: move it aside (mv ${file} ${shellQuote(`${path}.damaged`)}) and the next start ` +
    "makes a new one there; sqlite3's .recover may get the old records back from the moved file";
}

/**
 * What is at `path`, for `portal doctor`: missing, a Portal database (held
 * or not; one no server holds has its pages checked), foreign, or damaged.
 */
export function describeRecordsFile(path: string): { ok: boolean; detail: string } {
  try {
    if (!checkIdentity(path)) return { ok: true, detail: "not created yet" };
  } catch (error) {
    return { ok: false, detail: (error as Error).message };
  }
  const holder = heldBy(`${path}.lock`);
  if (holder !== undefined) {
    // Its server reads and writes it: a check now would hold up its commits.
    return { ok: true, detail: `a Portal database, in use by a server (pid ${holder || "?"})` };
  }
  const damage = checkPages(path);
  return damage === undefined
    ? { ok: true, detail: "a Portal database, not in use (a server opens it and keeps it)" }
    : { ok: false, detail: damage };
}

/** SQLite's `quick_check` of the file at `path`, read only: undefined, or what is damaged. */
function checkPages(path: string): string | undefined {
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path, { readOnly: true });
    const rows = db.prepare("PRAGMA quick_check(3)").all() as { quick_check: string }[];
    const found = rows.map((row) => row.quick_check);
    if (found.length === 1 && found[0] === "ok") return undefined;
    const error = Object.assign(new Error(found.join("; ")), { errcode: 11 });
    return damageMessage(path, error);
  } catch (error) {
    return damageMessage(path, error) ?? `${path} cannot be read: ${(error as Error).message}`;
  } finally {
    db?.close();
  }
}

/**
 * Whether a live process holds `<path>.lock` (the server of the database at
 * `path`, or the host of the socket at `path`), without creating anything.
 */
export function inUse(path: string): boolean {
  return heldBy(`${path}.lock`) !== undefined;
}

/** The pid (0 if unknown) of the process that holds `lockPath` locked, without creating it. */
function heldBy(lockPath: string): number | undefined {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(lockPath, { read: true, write: true });
  } catch {
    return undefined;
  }
  try {
    return file.tryLockSync(true) ? undefined : readHolder(lockPath) ?? 0;
  } finally {
    file.close();
  }
}

/**
 * True when `path` holds a Portal database, false when it is missing or
 * empty (a new database goes there); throws for anything else.
 */
function checkIdentity(path: string): boolean {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  if (!info.isFile) {
    throw new Error(`${path} is not a file: --db (or PORTAL_DB_PATH) names the database file`);
  }
  if (info.size === 0) return false;
  const header = new Uint8Array(100);
  const file = Deno.openSync(path, { read: true });
  let length: number;
  try {
    length = file.readSync(header) ?? 0;
  } finally {
    file.close();
  }
  const magic = new TextDecoder().decode(header.subarray(0, SQLITE_MAGIC.length));
  const id = new DataView(header.buffer).getUint32(APPLICATION_ID_OFFSET);
  if (length < 100 || magic !== SQLITE_MAGIC || id !== PORTAL_APPLICATION_ID) {
    const what = magic === SQLITE_MAGIC ? "another program's SQLite database" : "not a database";
    throw new Error(
      `${path} is not a Portal records database (it is ${what}), so Portal leaves it untouched: ` +
        "give --db (or PORTAL_DB_PATH) a new file, or one an earlier Portal server used",
    );
  }
  if (HAS_FILE_MODES) Deno.chmodSync(path, 0o600);
  return true;
}

/** Locks `<path>.lock` by {@link takeLock}; throws, naming its holder, when another has it. */
function lockFile(path: string): Deno.FsFile {
  const lock = takeLock(`${path}.lock`);
  if (lock) return lock;
  const holder = readHolder(`${path}.lock`);
  // Never "leave --db unset": a host serves the user's database when it is unset, and a host of
  // another Portal version holding it is the likely case.
  throw new Error(
    `the records database ${path} is in use by another Portal process` +
      `${holder ? ` (pid ${holder})` : ""}, a host of another Portal version or a ` +
      "server started with --no-host: each needs its own. Stop that one (its programs " +
      "end with it), or give this one another file with --db PATH",
  );
}

/**
 * Locks `lockPath` (made if missing) and writes this process's pid in it; undefined when another
 * process holds it. The lock taken must be the file the path names, since a sweeper may remove a
 * free lock between another's open and lock: then the one the path names now is taken, up to
 * three times, the last as it is.
 */
export function takeLock(lockPath: string): Deno.FsFile | undefined {
  for (let attempt = 0;; attempt++) {
    const file = Deno.openSync(lockPath, { read: true, write: true, create: true, mode: 0o600 });
    if (!file.tryLockSync(true)) {
      file.close();
      return undefined;
    }
    if (sameFile(file, lockPath) || attempt === 3) {
      file.truncateSync(0);
      file.writeSync(new TextEncoder().encode(`${Deno.pid}\n`));
      return file;
    }
    file.close();
  }
}

/** Whether `file` is still what `path` names (its holder may have removed it meanwhile). */
export function sameFile(file: Deno.FsFile, path: string): boolean {
  try {
    const ino = file.statSync().ino;
    return ino === null || ino === Deno.statSync(path).ino;
  } catch {
    return false;
  }
}

/** The pid a lock file names, if it names one. */
function readHolder(lockPath: string): number | undefined {
  try {
    const pid = Number.parseInt(Deno.readTextFileSync(lockPath), 10);
    return Number.isInteger(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** `portal-1-2.db-journal` → `portal-1-2.db`. */
function baseName(name: string): string {
  const suffix = COMPANIONS.find((s) => s !== "" && name.endsWith(s));
  return suffix ? name.slice(0, -suffix.length) : basename(name);
}

/** Last modification of `path` in ms, or -Infinity when it is missing. */
function modified(path: string): number {
  try {
    return Deno.statSync(path).mtime?.getTime() ?? -Infinity;
  } catch {
    return -Infinity;
  }
}

function removeIfPresent(path: string): void {
  try {
    Deno.removeSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}
