/**
 * The persistent, machine-wide registry of which programs need a terminal,
 * shared by every Portal server of the user. Facts get stronger each time
 * they are confirmed; a contradicting observation resets the count.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ProgramRegistry } from "./program_registry.ts";
 *
 * const registry = new ProgramRegistry(await Deno.makeTempDir());
 * registry.record("/usr/bin/ssh", true);
 * assert.equal(registry.record("ssh", true).confirmed_count, 2);
 * assert.equal(registry.query("ssh.exe")?.needs_pty, true);
 * registry.close();
 * ```
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { basename, join } from "node:path";
import type { ProgramFact } from "../model/schema.ts";
import { createPrivateDir, ensurePrivateFile } from "../store/paths.ts";

/** A fact as its row holds it: SQLite has no booleans. */
type FactRow = Omit<ProgramFact, "needs_pty"> & { needs_pty: number };

/** Registry file `programs.db` in a data directory. */
export class ProgramRegistry {
  #db: DatabaseSync;

  /**
   * Opens `programs.db` in `dir`, creating both owner-only (0700, 0600). A
   * file that is not a database any more is moved aside and replaced, with a
   * warning on stderr: one bad file must not cost every later session its
   * registry.
   */
  constructor(dir: string) {
    const path = join(dir, "programs.db");
    createPrivateDir(dir);
    ensurePrivateFile(path);
    try {
      this.#db = open(path);
    } catch (error) {
      if (!isDamaged(error)) throw error;
      const aside = `${path}.corrupt-${new Date().toISOString().replaceAll(":", "-")}`;
      Deno.renameSync(path, aside);
      console.error(
        `portal: the program registry ${path} could not be read (${(error as Error).message}); ` +
          `moved it to ${aside} and started a new one.`,
      );
      ensurePrivateFile(path);
      this.#db = open(path);
    }
  }

  /** The fact recorded for `program` (a name or a path), or `null` when none is. */
  query(program: string): ProgramFact | null {
    const row = this.#db.prepare("SELECT * FROM programs WHERE program = ?")
      .get(programKey(program)) as FactRow | undefined;
    return row ? { ...row, needs_pty: row.needs_pty === 1 } : null;
  }

  /**
   * Records an observation. The same value again increments `confirmed_count`
   * (and keeps earlier notes unless new ones are given); the opposite value
   * replaces the fact with a count of 1.
   */
  record(program: string, needsPty: boolean, notes?: string): ProgramFact {
    const key = programKey(program);
    const now = new Date().toISOString();
    this.#db.prepare(`INSERT INTO programs (program, needs_pty, confirmed_count, notes, updated_at)
      VALUES (?1, ?2, 1, ?3, ?4)
      ON CONFLICT (program) DO UPDATE SET
        confirmed_count = CASE WHEN needs_pty = ?2 THEN confirmed_count + 1 ELSE 1 END,
        notes = CASE WHEN ?3 IS NOT NULL THEN ?3 WHEN needs_pty = ?2 THEN notes ELSE NULL END,
        needs_pty = ?2, updated_at = ?4`).run(key, needsPty ? 1 : 0, notes ?? null, now);
    return this.query(key)!;
  }

  close(): void {
    this.#db.close();
  }
}

function open(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  try {
    // Several servers share this file: wait for a writer rather than fail. Every write is
    // one statement, so concurrent servers never lose an update.
    db.exec("PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL;");
    db.exec(`CREATE TABLE IF NOT EXISTS programs (
      program TEXT PRIMARY KEY, needs_pty INTEGER NOT NULL, confirmed_count INTEGER NOT NULL,
      notes TEXT, updated_at TEXT NOT NULL)`);
    db.prepare("SELECT count(*) FROM programs").get();
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** SQLite's words for a file that is not, or no longer, a database (node:sqlite gives no code). */
function isDamaged(error: unknown): boolean {
  return /file is not a database|database disk image is malformed/.test(
    (error as Error)?.message ?? "",
  );
}

/** Facts are kept per executable name: `/usr/bin/ssh` and `ssh.exe` are both `ssh`. */
export function programKey(program: string): string {
  return basename(program.trim().replaceAll("\\", "/")).replace(/\.exe$/i, "");
}
