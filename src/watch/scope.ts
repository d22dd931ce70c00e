/**
 * What one watch link shows: the processes of one client (an MCP session's
 * manager, whose list holds what that client may see: its own and the kept
 * ones), or of every client of this Portal (`portal watch`). Each scope has
 * a token of its own, and its link carries that token: the token, not
 * anything else in the URL, decides what a page may see, so a link edited
 * by hand reaches no more than it did. A scope ends with its client; its
 * open pages are then closed, and its token opens nothing.
 *
 * @module
 */
import { PortalError } from "../errors.ts";
import { generateToken, sameInConstantTime } from "../http_guard.ts";
import type { Session } from "../core/process/pool.ts";
import type { ListedProcess, WatchedProcess } from "../core/watch/watched_process.ts";

/** Where a scope finds its processes (a ProcessManager). */
export interface ProcessSource {
  watchedAll(): WatchedProcess[];
  /** The client whose processes they are (a ProcessManager's): what it runs elsewhere too. */
  readonly session?: Session;
}

/** The rows of processes a source's client runs on other machines (src/remote/): listed only. */
export type Elsewhere = (source: ProcessSource) => ListedProcess[];

/** The processes one link shows, and the pages open on them. */
export class WatchScope {
  /** What the page's header calls the list. */
  readonly label: string;
  /** The credential its link carries ({@link generateToken}: 256 bits). */
  readonly token: string = generateToken();
  /** The sockets of the pages open on this scope. */
  readonly pages = new Set<WebSocket>();
  readonly #source: () => ProcessSource;
  readonly #elsewhere: Elsewhere;
  readonly #expected = new TextEncoder().encode(this.token);

  /** `source`: where its processes are now (a manager; `portal watch`'s is set later). */
  constructor(label: string, source: () => ProcessSource, elsewhere: Elsewhere = () => []) {
    this.label = label;
    this.#source = source;
    this.#elsewhere = elsewhere;
  }

  /** Whether `token` is this scope's, compared so that timing tells nothing of it. */
  opens(token: Uint8Array): boolean {
    return sameInConstantTime(token, this.#expected);
  }

  /** Every process of the scope, here and elsewhere, by id. */
  list(): ListedProcess[] {
    const source = this.#source();
    const here = source.watchedAll().map((process) => process.listed());
    return [...here, ...this.#elsewhere(source)].sort((a, b) => a.id - b.id);
  }

  /** The process with `id`, or a clear error. */
  find(id: number): WatchedProcess {
    const process = this.#source().watchedAll().find((p) => p.id === id);
    if (process === undefined) {
      throw new PortalError(
        `No process ${id} here: it was cleaned up, or belongs to another client.`,
        "not_found",
        { id },
      );
    }
    return process;
  }

  /** The client is gone: its pages close. */
  close(): void {
    for (const socket of this.pages) socket.close(1000, "this client's session ended");
    this.pages.clear();
  }
}
