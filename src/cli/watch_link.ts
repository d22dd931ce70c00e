/**
 * How a person at a shell finds Portal's pages and recordings: a running
 * server leaves its watch link (with its token) in `<database>.watch`,
 * owner-only, for as long as it holds the database; `portal watch` prints
 * it, `portal export` reads the database. Which database: `--db` (or
 * `PORTAL_DB_PATH`), else the newest in the records directory that has what
 * is asked for (a live server, a process id).
 *
 * @module
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { inUse } from "../core/store/database_file.ts";
import { DatabaseReader } from "../core/store/database_reader.ts";
import { recordsDir } from "../core/store/paths.ts";
import { linkFile } from "../watch/link_file.ts";

/** A command's failure, in one line for the person (exit 1). */
export class NotFound extends Error {
  override name = "NotFound";
}

/**
 * The watch link of the running server of `--db` (or `PORTAL_DB_PATH`), else
 * of the newest running server; with `target`, it opens on that process (an
 * id, or a name: the live process of that name, else the newest).
 */
export function watchLink(env: Record<string, string>, target?: string): string {
  // existsSync: any error (not only a missing file) reads as no link, so nothing runs.
  const live = databases(env).filter((db) => inUse(db) && existsSync(linkFile(db)));
  if (live.length === 0) {
    throw new NotFound(
      env.PORTAL_DB_PATH
        ? `no running Portal server holds ${env.PORTAL_DB_PATH}`
        : "no Portal server is running (its MCP client starts it; the page lives as long as " +
          "the server)",
    );
  }
  const link = new URL(Deno.readTextFileSync(linkFile(live[0])).trim());
  if (target !== undefined) link.searchParams.set("id", String(pick(live[0], target)));
  return link.href;
}

/** The id `target` names in the database at `path` (see process_target.ts); NotFound if none. */
function pick(path: string, target: string): number {
  const reader = new DatabaseReader(path);
  try {
    const id = reader.pick(target);
    if (id !== undefined) return id;
  } finally {
    reader.close();
  }
  throw new NotFound(
    `no process has the id or name ${JSON.stringify(target)}: \`portal ps\` lists them`,
  );
}

/** The databases to look in, newest first: `PORTAL_DB_PATH`'s alone, or the records directory's. */
export function databases(env: Record<string, string>): string[] {
  if (env.PORTAL_DB_PATH) return [env.PORTAL_DB_PATH];
  const dir = recordsDir(env);
  let names: string[];
  try {
    names = [...Deno.readDirSync(dir)].map((entry) => entry.name).filter((n) => n.endsWith(".db"));
  } catch {
    return [];
  }
  const written = (name: string) =>
    Math.max(...["", "-journal"].map((s) => modified(join(dir, name + s))));
  return names.sort((a, b) => written(b) - written(a)).map((name) => join(dir, name));
}

function modified(path: string): number {
  try {
    return Deno.statSync(path).mtime?.getTime() ?? 0;
  } catch {
    return 0;
  }
}
