/**
 * What every session of a server shares (a host's, a stdio server's, an
 * HTTP server's): one records database, the program registry, and the
 * {@link ProcessPool} of every session's processes, killed together at
 * shutdown.
 *
 * @module
 */
import { settlesWithin } from "../async.ts";
import { ProcessManager } from "../core/process/manager.ts";
import { ProcessPool, type Session } from "../core/process/pool.ts";
import { ProgramRegistry } from "../core/registry/program_registry.ts";
import {
  claimRecordsFile,
  damageMessage,
  type RecordsFile,
  removeOldRecords,
} from "../core/store/database_file.ts";
import { dataDir, recordsDbPath, recordsDir } from "../core/store/paths.ts";
import { RecordStore } from "../core/store/record_store.ts";
import { readVar, REMOTE_UNREACHABLE_S, RETENTION_DAYS, TASK_AFTER_MS } from "../env_vars.ts";
import { SHUTDOWN_DEADLINE_MS } from "../limits.ts";
import type { Log } from "../mcp/logging.ts";
import { Tasks } from "../mcp/tasks/tasks.ts";
import { TaskFile, taskFilePath } from "../core/steps/task_file.ts";
import { publishLink } from "../watch/link_file.ts";
import { WatchService } from "../watch/service.ts";
import type { WatchScope } from "../watch/scope.ts";
import type { ToolContext } from "../mcp/tools/tool.ts";
import { Remotes } from "../remote/remotes.ts";
import { runtimeDir } from "../runtime_dir.ts";
import { portalPlace } from "../core/policy/sandbox_rules.ts";

/**
 * The shared files, or a clear message and exit 1 when they cannot be made
 * (a damaged database among them: exiting frees the host's socket, locks and
 * port at once). With `adoptEarlier` (a host), ended processes past the
 * retention period leave the file and an earlier host's are taken over.
 */
export function openShared(
  paths: Record<string, string>,
  log: Log,
  watch: WatchService,
  options: { adoptEarlier?: boolean } = {},
): Shared {
  try {
    const shared = new Shared(paths, log, watch);
    if (options.adoptEarlier) {
      // One file for every client: ended processes leave it after the retention period, as
      // old per-server files do.
      shared.store.removeEndedBefore(readVar(RETENTION_DAYS, paths) * 86_400_000);
      const adopted = shared.pool.adoptEarlier() + shared.remote.adoptEarlier();
      if (adopted > 0) log.stderr("info", "host", `${adopted} processes of an earlier host listed`);
    }
    return shared;
  } catch (error) {
    // One line, no stack: the message says what is wrong and what to do.
    const damage = damageMessage(recordsDbPath(paths), error);
    const message = String(damage ?? (error as Error)?.message ?? error).replace(/[.\s]+$/, "");
    console.error(
      `portal: cannot start: ${message}. ` +
        (damage ? "`portal doctor` checks it again." : "`portal doctor` checks the places " +
          "Portal writes to; --db PATH and --data-dir PATH choose others."),
    );
    Deno.exit(1);
  }
}

/**
 * What every session of the server shares: one records database (so ids come
 * from one counter: the database keys records by process id), the program
 * registry, and the pool of every session's processes, killed together at
 * shutdown. A database reopened after an earlier run keeps its records; ids
 * go on after the highest it holds, and the earlier run's processes are not
 * this server's.
 */
export class Shared {
  readonly dbPath: string;
  readonly store: RecordStore;
  readonly registry: ProgramRegistry;
  /** Every process, every session's. */
  readonly pool: ProcessPool;
  /** The processes of this server's sessions on other machines (src/remote/). */
  readonly remote: Remotes;
  /** The MCP tasks of every session, kept in the task file beside the records. */
  readonly tasks: Tasks;
  readonly #file: RecordsFile;
  readonly #tasks: TaskFile;
  readonly #watch: WatchService;
  readonly #unpublish: () => void;

  constructor(paths: Record<string, string>, log: Log, watch: WatchService) {
    this.dbPath = recordsDbPath(paths);
    const retentionMs = readVar(RETENTION_DAYS, paths) * 86_400_000;
    removeOldRecords(recordsDir(paths), retentionMs, { keep: this.dbPath });
    this.#file = claimRecordsFile(this.dbPath);
    try {
      this.store = new RecordStore(this.dbPath, {
        onWritesChange: (failure) =>
          log.log(
            failure ? "error" : "notice",
            "server",
            failure ?? "The records database is written again.",
          ),
      });
      // Hidden from every sandbox: Portal's own files (a program that reached a host's socket
      // or read the watch token could act outside its rules) and the user's runtime directory
      // (D-Bus and systemd --user start programs outside any sandbox).
      this.pool = new ProcessPool(this.store, portalPlace(paths, this.dbPath));
      this.remote = new Remotes(
        () => this.pool.takeId(),
        this.store,
        () => runtimeDir(paths),
        readVar(REMOTE_UNREACHABLE_S, paths) * 1000,
      );
      this.#tasks = new TaskFile(taskFilePath(this.dbPath));
      this.tasks = new Tasks({ store: this.#tasks, afterMs: readVar(TASK_AFTER_MS, paths) });
      this.registry = new ProgramRegistry(dataDir(paths));
      this.#watch = watch;
      watch.showAll(this.manager({ seesAll: true }));
      watch.listElsewhere((source) => source.session ? this.remote.ids.listed(source.session) : []);
      this.#unpublish = publishLink(this.dbPath, watch.link(watch.everything));
    } catch (error) {
      this.#file.release();
      throw error;
    }
  }

  /** The database for the startup line: its path, and whether an earlier server's records are in it. */
  get database(): string {
    const first = this.pool.firstId;
    return this.#file.existed
      ? `${this.dbPath} (opened again: its records are kept, new ids start at ${first})`
      : this.dbPath;
  }

  /** The view of `session` (a new one by default: a client of stdio, or an HTTP session). */
  manager(session: Session = {}): ProcessManager {
    return new ProcessManager(this.pool, session);
  }

  /**
   * What the tool calls of one client use: its view of the processes (`manager`), the registry,
   * the other machines, and its watch page, whose `scope` ends with the client (`watch.end`).
   */
  toolContext(manager: ProcessManager, watch: WatchService): {
    context: ToolContext;
    scope: WatchScope;
  } {
    const scope = watch.open(manager);
    const context = {
      manager,
      registry: this.registry,
      remote: this.remote,
      watch: { link: (id?: number) => watch.link(scope, id) },
    };
    return { context, scope };
  }

  /**
   * A session's unkept processes die with it; by default their records go
   * too (an HTTP session's: no one can read them any more). Kept ones stay
   * for the other sessions.
   */
  async endSession(session: Session, options = { deleteRecords: true }): Promise<void> {
    await settlesWithin(this.remote.leave(session), SHUTDOWN_DEADLINE_MS);
    await this.pool.leave(session, options);
  }

  /** After `first` (the transport's own ending), kills every process, bounded; closes the files. */
  async close(first: Promise<void> = Promise.resolve()): Promise<void> {
    const killed = first.then(() =>
      Promise.all([this.manager({ seesAll: true }).killAll(), this.remote.close()])
    );
    await settlesWithin(killed, SHUTDOWN_DEADLINE_MS);
    this.#unpublish();
    await settlesWithin(this.#watch.close(), SHUTDOWN_DEADLINE_MS);
    this.tasks.close();
    this.#tasks.close();
    this.store.close();
    this.#file.release();
    this.registry.close();
  }
}

/** Where the watch page is, for the startup lines: its link's token is not for a log. */
export function watchLine(watch: WatchService): string {
  return `portal: watch page ${watch.url} (its link: process_watch, or \`portal watch\`)`;
}

/** The watch page's own listener, or a clear message and exit 1 when its port is taken. */
export function listenWatch(port: number): WatchService {
  try {
    return WatchService.listen(port);
  } catch (error) {
    console.error(`portal: cannot listen on 127.0.0.1:${port}: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
