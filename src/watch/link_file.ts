/**
 * The watch link a running server leaves beside its database,
 * `<database>.watch` (owner-only: it holds the token), for as long as it
 * holds the database: how `portal watch` finds the page of a server it did
 * not start.
 *
 * @module
 */
import { ensurePrivateFile } from "../core/store/paths.ts";

/** Where the server of the database at `dbPath` leaves its link. */
export function linkFile(dbPath: string): string {
  return `${dbPath}.watch`;
}

/** Leaves `link` beside the database for `portal watch`; the returned function takes it away. */
export function publishLink(dbPath: string, link: string): () => void {
  const path = linkFile(dbPath);
  ensurePrivateFile(path);
  Deno.writeTextFileSync(path, `${link}\n`);
  return () => {
    try {
      Deno.removeSync(path);
    } catch { /* gone already */ }
  };
}
