/**
 * Where a tool call goes: to this server's processes, or to another
 * machine's Portal. `process_start` with `host` starts the program there;
 * a call whose `id` is a remote process's is relayed with the remote id,
 * and its reply comes back with the local id (and `host`); `process_list`
 * adds the remote processes the session sees. Each session has its own
 * link per host (ssh multiplexes them onto one connection), so a session
 * that ends ends its unkept remote programs as a local client's would;
 * a call for a kept one after its link dropped, or from another session,
 * opens a link first (within the call: at most 15 s).
 *
 * A remote watch page's link (and so its token) is never asked for: it
 * stays on that machine.
 *
 * Each remote process has its row in the records database, as a local one
 * (`host`, `remote_id`: where it runs), so a later host of the same database
 * takes the kept ones over (they outlive it there), with the same ids.
 *
 * What is known of a remote process is refreshed, never assumed: each
 * process_list asks its host, and while kept remote processes are known the
 * host asks their machines itself every minute (or a quarter of the window
 * below, if shorter), through a link of its own closed after each look. A
 * machine that does not answer leaves its processes listed as last seen,
 * marked `unreachable` (since when, why); after `PORTAL_REMOTE_UNREACHABLE_S`
 * without an answer they no longer keep this host up.
 *
 * @module
 */
import {
  processDetails,
  processList,
  type ProcessSummary,
  processSummary,
  project,
} from "../core/model/schema.ts";
import type { Session } from "../core/process/pool.ts";
import type { CallControl } from "../core/steps/step.ts";
import { childEnvironment } from "../environment.ts";
import type { ListedProcess } from "../watch/scope.ts";
import { PortalError } from "../errors.ts";
import { type RemoteEntry, RemoteIds, type RemoteRows } from "./remote_ids.ts";
import { RemoteLink, RemoteRefusal } from "./remote_link.ts";
import { relayedReply } from "./relayed_reply.ts";
import type { RoutedTool } from "./target.ts";
import { transportOf } from "./transports.ts";

type Args = Record<string, unknown>;
type Result = Record<string, unknown>;

/** process_list as this server asks it of a host by itself (to refresh what it knows). */
const LIST: RoutedTool = { name: "process_list", target: "list", output: processList };

/** The longest between two looks at the machines of kept remote processes. */
const CHECK_MS = 60_000;

export class Remotes {
  readonly ids: RemoteIds;
  readonly #controlDir: () => string;
  readonly #unreachableMs: number;
  readonly #links = new Map<Session, Map<string, Promise<RemoteLink>>>();
  readonly #listeners = new Set<() => void>();
  #checks: ReturnType<typeof setInterval> | undefined;

  /**
   * Ids from `takeId` (the server's one counter), rows kept in `rows`; ssh's control sockets
   * in `controlDir()`; a machine silent `unreachableMs` no longer keeps the host up for its
   * kept processes.
   */
  constructor(
    takeId: () => number,
    rows: RemoteRows,
    controlDir: () => string,
    unreachableMs: number,
  ) {
    this.ids = new RemoteIds(takeId, rows);
    this.#controlDir = controlDir;
    this.#unreachableMs = unreachableMs;
  }

  /**
   * Takes over the kept remote processes an earlier host left in the database (see
   * RemoteIds.adoptEarlier); returns how many.
   */
  adoptEarlier(): number {
    const adopted = this.ids.adoptEarlier();
    if (adopted > 0) this.#checkKept();
    return adopted;
  }

  /**
   * Whether a kept remote process runs, as its machine said within the window: this host
   * stays up to reach it.
   */
  get keepsRunning(): boolean {
    return this.ids.keepsRunning(this.#unreachableMs);
  }

  /** Calls `listener` whenever what keeps the host up may have changed; returns how to stop. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Runs the call `tool(args)` of `session`: relayed when it concerns
   * another machine, else `local()`.
   */
  async route(
    tool: RoutedTool,
    args: Args,
    session: Session,
    control: CallControl,
    local: () => Promise<Result>,
  ): Promise<Result> {
    const { target } = tool;
    if (target === "start" && typeof args.host === "string") {
      return await this.#start(tool, args, session, control);
    }
    const named = target === "process" || target === "process_removed" ||
      target === "process_here";
    const entry = named && typeof args.id === "number" ? this.ids.get(args.id) : undefined;
    if (entry && this.ids.sees(session, entry)) {
      return await this.#relay(tool, args, entry, session, control);
    }
    const result = await local();
    if (target === "list") {
      const processes = result.processes as Result[];
      return { ...result, processes: [...processes, ...await this.#list(tool, session, control)] };
    }
    if (target === "kill_all") return await this.#killAll(tool, result, session, control);
    return result;
  }

  /** The links of the session that ended are closed: its unkept remote programs end there. */
  async leave(session: Session): Promise<void> {
    const links = this.#links.get(session);
    this.#links.delete(session);
    this.ids.leave(session);
    await Promise.all([...links?.values() ?? []].map(async (link) => {
      await (await link.catch(() => undefined))?.close();
    }));
  }

  /** Every link ends (the server is ending). */
  async close(): Promise<void> {
    await Promise.all([...this.#links.keys()].map((session) => this.leave(session)));
  }

  async #start(
    tool: RoutedTool,
    args: Args,
    session: Session,
    control: CallControl,
  ): Promise<Result> {
    const { host, ...rest } = args as Args & { host: string };
    const policy = session.policy;
    if (policy?.file && !policy.hosts.includes(host)) {
      throw new PortalError(
        `The person's policy (${policy.file}) lets no program run on ${JSON.stringify(host)}: ` +
          `its \`hosts\` lists ${policy.hosts.length ? policy.hosts.join(", ") : "none"}. ` +
          "Ask the person to add it, or start the program here.",
      );
    }
    const link = await this.#link(session, host);
    const reply = await link.call(tool.name, rest, control);
    // The new process's id is the reply's: it is the one id it may name.
    const remoteId = (reply as { id?: unknown }).id;
    let entry: RemoteEntry | undefined;
    const local = relayedReply(
      tool.output,
      reply,
      (id) => {
        if (id !== remoteId) return undefined;
        entry ??= this.ids.add({
          host,
          remoteId: id,
          owner: session,
          keep: rest.keep === true,
          policy,
          startedAt: new Date().toISOString(),
          environment: session.environment,
          seenAt: Date.now(),
        });
        return entry.id;
      },
      host,
      tool.name,
    );
    entry!.summary = project(processSummary, local as ProcessSummary);
    // Its id, once handed out, must outlive a crash of this host, as a local one's.
    this.ids.save(entry!, { now: true });
    if (entry!.keep) this.#checkKept();
    return local;
  }

  /** Looks at the machines of kept processes now and then, while there are any. */
  #checkKept(): void {
    if (this.#checks !== undefined) return;
    const every = Math.max(100, Math.min(CHECK_MS, this.#unreachableMs / 4));
    this.#checks = setInterval(async () => {
      const kept = this.ids.visibleTo({ seesAll: true }).filter((entry) => entry.keep);
      if (kept.length === 0) {
        clearInterval(this.#checks);
        this.#checks = undefined;
      }
      for (const host of new Set(kept.map((entry) => entry.host))) {
        const mine = kept.filter((entry) => entry.host === host);
        // A link of its own, as the first of them was reached; closed after the look.
        const looker: Session = { environment: mine[0].environment, seesAll: true };
        await this.#refresh(host, mine, looker, {});
        await this.leave(looker);
      }
      for (const listener of this.#listeners) listener();
    }, every);
    // The looks keep nothing alive: the host decides on what they find.
    Deno.unrefTimer(this.#checks);
  }

  /** The rows a watch page of `session` lists for its remote processes, as last seen. */
  listed(session: Session): ListedProcess[] {
    return this.ids.listed(session);
  }

  /** Every remote process as last seen (`portal ps`: a person's view, with no call to any host). */
  known(): Record<string, unknown>[] {
    return this.ids.known();
  }

  async #relay(
    tool: RoutedTool,
    args: Args,
    entry: RemoteEntry,
    session: Session,
    control: CallControl,
  ): Promise<Result> {
    if (tool.target === "process_here") {
      throw new PortalError(
        `Process ${entry.id} runs on ${entry.host}: its watch page is there (\`ssh ${entry.host} ` +
          `portal watch\` prints its link), or \`portal attach ${entry.host}:${entry.remoteId}\` ` +
          "here joins it from a terminal.",
      );
    }
    const link = await this.#link(session, entry.host);
    const reply = await link.call(tool.name, { ...args, id: entry.remoteId }, control, entry.id)
      .catch((error) => {
        // The remote words its own ids: its words stay as they are, said to be about this one.
        if (!(error instanceof RemoteRefusal)) throw error;
        throw new PortalError(
          `Process ${entry.id} is process ${entry.remoteId} on ${entry.host}, which answered: ` +
            error.said,
        );
      });
    // The reply is about this process: its id is the one it may name.
    const local = relayedReply(
      tool.output,
      reply,
      (id) => id === entry.remoteId ? entry.id : undefined,
      entry.host,
      tool.name,
    );
    if (tool.target === "process_removed") this.ids.remove(entry.id);
    // What the reply tells of the process (a kill's status, a step's state) is its latest.
    if (entry.summary && this.ids.get(entry.id)) {
      for (const key of ["status", "state"]) {
        if (typeof local[key] === "string") entry.summary[key] = local[key];
      }
      this.ids.save(entry);
    }
    // Everything known of a process (process_inspect's schema) says which Portal answered: its
    // version may word things differently.
    return tool.output === processDetails ? { ...local, remote_version: link.version } : local;
  }

  /**
   * process_kill_all: after this server's, each machine where `session` has started programs
   * kills those of its link there; the outcomes merged, with local ids.
   */
  async #killAll(
    tool: RoutedTool,
    local: Result,
    session: Session,
    control: CallControl,
  ): Promise<Result> {
    const mine = this.ids.visibleTo(session).filter((entry) => entry.owner === session);
    const merged = { ...local } as Record<string, unknown[]>;
    for (const host of new Set(mine.map((entry) => entry.host))) {
      let outcome: Result;
      try {
        const link = await this.#link(session, host);
        outcome = this.#toLocal(tool, await link.call(tool.name, {}, control), host);
      } catch (error) {
        const failed = mine.filter((entry) => entry.host === host)
          .map((entry) => ({ id: entry.id, error: (error as Error).message }));
        outcome = { failed };
      }
      for (const [key, list] of Object.entries(outcome)) {
        if (Array.isArray(list)) merged[key] = [...merged[key] ?? [], ...list];
      }
    }
    return merged;
  }

  /**
   * The remote processes `session` sees, as each host's process_list tells (last seen if
   * unreachable). One the host no longer lists is gone there (an unkept one whose link
   * dropped, one cleaned up): it is forgotten here too.
   */
  async #list(tool: RoutedTool, session: Session, control: CallControl): Promise<Result[]> {
    const entries = this.ids.visibleTo(session);
    const hosts = [...new Set(entries.map((entry) => entry.host))];
    await Promise.all(
      hosts.map((host) =>
        this.#refresh(host, entries.filter((entry) => entry.host === host), session, control, tool)
      ),
    );
    return entries.filter((entry) => this.ids.get(entry.id)).flatMap((entry) =>
      this.ids.shown(entry)
    );
  }

  /**
   * `entries` (all on `host`) as its process_list, asked through `session`'s link, tells: each
   * listed one's latest line; one no longer listed is gone there (an unkept one whose link
   * dropped, one cleaned up) and forgotten here too. A host that does not answer (or whose
   * reply is refused) leaves them as last seen, marked unreachable.
   */
  async #refresh(
    host: string,
    entries: RemoteEntry[],
    session: Session,
    control: CallControl,
    tool = LIST,
  ): Promise<void> {
    let processes: Result[];
    try {
      const link = await this.#link(session, host);
      const reply = await link.call(tool.name, {}, control);
      processes = this.#toLocal(tool, reply, host).processes as Result[];
    } catch (error) {
      const since = new Date().toISOString();
      for (const entry of entries) entry.unreachable ??= { since, why: (error as Error).message };
      return;
    }
    const listed = new Map(processes.map((line) => [line.id as number, line]));
    for (const entry of entries) {
      const line = listed.get(entry.id);
      if (line === undefined) {
        this.ids.remove(entry.id);
        continue;
      }
      entry.summary = line;
      entry.seenAt = Date.now();
      entry.unreachable = undefined;
      this.ids.save(entry);
    }
  }

  /**
   * `session`'s link to `host`, opened (again) if it has none alive. Calls at once share one
   * opening: each is chained on the one before, set before anything is awaited.
   */
  #link(session: Session, host: string): Promise<RemoteLink> {
    const links = this.#links.get(session) ?? new Map<string, Promise<RemoteLink>>();
    this.#links.set(session, links);
    const open = () => {
      const env = session.environment?.env ?? Deno.env.toObject();
      // ssh (or a person's transport) gets no PORTAL_* variable and no marked secret, as a program.
      const transport = transportOf(host, env, this.#controlDir());
      return RemoteLink.open(host, transport, childEnvironment(env));
    };
    // A failed opening (a bad name, an unreachable host) is tried again by the next call.
    const next = (links.get(host) ?? Promise.reject()).then(
      (link) => link.alive ? link : open(),
      open,
    );
    links.set(host, next);
    return next;
  }

  /**
   * `host`'s reply to `tool` with its process ids made local (and `host` beside a process's
   * own); in a list, a process this server did not start there (another client's) is left out.
   */
  #toLocal(tool: RoutedTool, reply: Result, host: string): Result {
    return relayedReply(
      tool.output,
      reply,
      (id) => this.ids.localOf(host, id),
      host,
      tool.name,
    );
  }
}
