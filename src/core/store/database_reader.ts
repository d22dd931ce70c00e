/**
 * A records database opened read-only, for a person's command (`portal
 * export`): a process's row, its terminal sizes and its records, as a
 * recording. It may be the file of a live server (SQLite lets readers in
 * between commits, see live_reads.ts; what that server has not committed yet,
 * at most the last commit interval, is not there), or of one that has ended.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { PortalError } from "../../errors.ts";
import type { Recording } from "./records.ts";
import { pickProcess } from "../model/process_target.ts";
import { readLive } from "./live_reads.ts";
import { ProcessesTable } from "./processes_table.ts";
import { StoredFrames } from "./frames/stored_frames.ts";
import { prepareStatements, SEQ_SPAN } from "./tables.ts";

/** A records database, read-only. */
export class DatabaseReader {
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #frames: StoredFrames;
  readonly #rows: ProcessesTable;

  /** Opens `path` (which must be a Portal records database: see database_file.ts) read-only. */
  constructor(path: string) {
    this.path = path;
    this.#db = new DatabaseSync(path, { readOnly: true });
    this.#db.exec("PRAGMA busy_timeout = 2000");
    // Preparing reads the schema, which races a commit like any read.
    const { frames, rows } = readLive(() => ({
      frames: new StoredFrames(prepareStatements(this.#db)),
      rows: new ProcessesTable(this.#db),
    }));
    this.#frames = frames;
    this.#rows = rows;
  }

  /** The id `target` (an id, or a name) means in this file (see process_target.ts), if any. */
  pick(target: string): number | undefined {
    const rows = readLive(() =>
      this.#db.prepare("SELECT id, name, status FROM processes").all()
    ) as { id: number; name: string | null; status: string }[];
    const processes = rows.map(({ id, name, status }) => ({
      id,
      name,
      running: status === "running",
    }));
    return pickProcess(processes, target)?.id;
  }

  /** The recording of PTY process `id`; a clear error for an unknown id or a pipe process. */
  recording(id: number): Recording {
    const row = readLive(() => this.#rows.row(id));
    if (row === undefined) {
      throw new PortalError(`${this.path} has no process ${id}.`, "not_found", { id });
    }
    if (!row.pty) {
      throw new PortalError(
        `Process ${id} ran on pipes, which have no terminal to replay: read its output with ` +
          "process_read.",
        "unsupported",
        { id },
      );
    }
    const base = id * SEQ_SPAN;
    return readLive(() => ({
      process: row,
      sizes: this.#rows.sizes(id),
      records: this.#frames.records(base, base, [base, base, base], false),
    }));
  }

  close(): void {
    this.#db.close();
  }
}
