/**
 * `portal export ID|NAME > session.cast`: a PTY process's recording as an
 * asciicast v2 file on stdout, read from the records database (see
 * watch_link.ts for which), live or ended; one line on stderr says which
 * database it came from.
 *
 * @module
 */
import { PortalError } from "../errors.ts";
import { asciicast } from "../core/recording/asciicast.ts";
import { DatabaseReader } from "../core/store/database_reader.ts";
import { visible } from "./visible.ts";
import { databases, NotFound } from "./watch_link.ts";

/** Bytes written to stdout at a time. */
const CHUNK_CHARS = 64 * 1024;

/**
 * Writes the asciicast of the process `target` (an id, or a name: see
 * process_target.ts) names to stdout; throws {@link NotFound} when no database has it.
 */
export async function exportCast(env: Record<string, string>, target: string): Promise<void> {
  for (const path of databases(env)) {
    let reader: DatabaseReader;
    let id: number | undefined;
    try {
      reader = new DatabaseReader(path);
      id = reader.pick(target);
      if (id === undefined) {
        reader.close();
        continue;
      }
    } catch {
      continue; // Not a records database (or not one of this version): look further.
    }
    try {
      console.error(`portal: process ${id} of ${visible(path)}`);
      await write(asciicast(reader.recording(id)));
      return;
    } catch (error) {
      if (error instanceof PortalError) throw new NotFound(error.message);
      throw error;
    } finally {
      reader.close();
    }
  }
  const where = env.PORTAL_DB_PATH ? env.PORTAL_DB_PATH : "any records database of this user";
  throw new NotFound(
    `no process has the id or name ${JSON.stringify(target)} in ${where} (--db PATH names another)`,
  );
}

async function write(lines: Iterable<string>): Promise<void> {
  const encoder = new TextEncoder();
  let chunk = "";
  const flush = async () => {
    const bytes = encoder.encode(chunk);
    for (let at = 0; at < bytes.length;) at += await Deno.stdout.write(bytes.subarray(at));
    chunk = "";
  };
  for (const line of lines) {
    chunk += line;
    if (chunk.length >= CHUNK_CHARS) await flush();
  }
  await flush();
}
