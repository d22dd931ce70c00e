/**
 * Where a tool call goes, by its tool's declared target (target.ts): this
 * server's processes or another machine's Portal, each answering in this
 * server's ids.
 * `process_start` with `machine` starts the program there; a call whose `id`
 * is a remote process's is relayed with the remote id, its reply back in local
 * ids (and `machine`); `process_list` and `process_kill_all` merge every
 * machine's. Each session has its own link per machine (ssh multiplexes them onto one
 * connection), so a session that ends ends its unkept remote programs as a
 * local client's would; a call for a kept one after its link dropped, or from
 * another session, opens a link first (within the call: at most 15 s). A
 * remote watch page's link (and its token) is never asked for.
 *
 * What is known of a remote process (remote_ids.ts) is refreshed, never
 * assumed: each process_list asks its machine, and while kept remote processes
 * are known the host looks at their machines itself every minute (or a
 * quarter of the window, if shorter), through a link of its own closed after
 * each look. Unanswered, they are listed as last seen, marked `unreachable`;
 * after `PORTAL_REMOTE_UNREACHABLE_S` without an answer they no longer keep
 * this host up.
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
import { type CallControl, needsInput } from "../core/steps/step.ts";
import { childEnvironment } from "../environment.ts";
import { PortalError } from "../errors.ts";
import { type RemoteEntry, RemoteIds, type RemoteRows } from "./remote_ids.ts";
import { RemoteLink, RemoteRefusal } from "./remote_link.ts";
import { relayedReply } from "./relayed_reply.ts";
import type { RoutedTool } from "./target.ts";
import { transportOf } from "./transports.ts";
import { installedAtFirstUse } from "./install.ts";

type Args = Record<string, unknown>;
type Result = Record<string, unknown>;
/** One source's answer to a call, in this server's ids. */
type Answer = () => Promise<Result>;

/** process_list as this server asks it of a machine to refresh what it knows. */
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
    const now = Date.now();
    return this.ids.visibleTo({ seesAll: true }).some((entry) =>
      entry.keep && entry.summary?.status === "running" &&
      now - entry.seenAt < this.#unreachableMs
    );
  }

  /** Calls `listener` whenever what keeps the host up may have changed; returns how to stop. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Runs the call `tool(args)` of `session` where its target is: on this server (`local()`),
   * on one machine, or on this server and each machine its processes run on, the answers
   * merged (their lists one after the other).
   */
  async route(
    tool: RoutedTool,
    args: Args,
    session: Session,
    control: CallControl,
    local: Answer,
  ): Promise<Result> {
    const answers = this.#answers(tool, args, session, control, local);
    const replies = await Promise.all(answers.map((answer) => answer()));
    const merged = { ...replies[0] };
    for (const reply of replies.slice(1)) {
      for (const [key, list] of Object.entries(reply)) {
        if (Array.isArray(list)) merged[key] = [...merged[key] as unknown[] ?? [], ...list];
      }
    }
    return merged;
  }

  /**
   * Who answers `tool(args)` of `session`, by the tool's declared target: this server
   * (`local`), or the Portal of a machine (through the session's link there), or both.
   */
  #answers(
    tool: RoutedTool,
    args: Args,
    session: Session,
    control: CallControl,
    local: Answer,
  ): Answer[] {
    const visible = this.ids.visibleTo(session);
    const machines = (entries: RemoteEntry[]) => [...new Set(entries.map((e) => e.machine))];
    switch (tool.target) {
      case "start": {
        const machine = startMachine(args);
        if (machine === undefined) return [local];
        return [() => this.#start(machine, tool, args, session, control)];
      }
      case "process":
      case "process_removed":
      case "process_here": {
        const entry = visible.find((entry) => entry.id === args.id);
        return [entry ? () => this.#relay(tool, args, entry, session, control) : local];
      }
      case "list":
        return [
          local,
          ...machines(visible).map((machine) => () => this.#list(machine, session, control)),
        ];
      case "kill_all": {
        // A kill_all there ends what this session's link started.
        const mine = visible.filter((entry) => entry.owner === session);
        return [
          local,
          ...machines(mine).map((machine) => () => this.#killAll(machine, tool, session, control)),
        ];
      }
      case "none":
        return [local];
    }
  }

  /**
   * process_list on `machine`: what it no longer lists is gone there (an unkept one whose link
   * dropped, one cleaned up), forgotten here too; what it cannot be asked about is as last seen.
   */
  async #list(machine: string, session: Session, control: CallControl): Promise<Result> {
    const entries = this.ids.visibleTo(session).filter((entry) => entry.machine === machine);
    await this.#refresh(machine, entries, session, control);
    const known = entries.filter((entry) => this.ids.get(entry.id));
    return { processes: known.flatMap((entry) => this.ids.shown(entry)) };
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
    machine: string,
    tool: RoutedTool,
    args: Args,
    session: Session,
    control: CallControl,
  ): Promise<Result> {
    const { machine: _, host: __, ...rest } = args;
    const policy = session.policy;
    if (policy?.file && !policy.machines.includes(machine)) {
      throw new PortalError(
        `The person's policy (${policy.file}) lets no program run on ${JSON.stringify(machine)}: ` +
          `its \`machines\` lists ${policy.machines.join(", ") || "none"}. ` +
          "Ask the person to add it, or start the program here.",
      );
    }
    const link = await this.#link(session, machine);
    const reply = await link.call(tool.name, rest, control);
    // The new process's id is the reply's: it is the one id it may name.
    const remoteId = (reply as { id?: unknown }).id;
    let entry: RemoteEntry | undefined;
    const local = this.#toLocal(tool, reply, machine, (id) => {
      if (id !== remoteId) return undefined;
      entry ??= this.ids.add({
        ...{ machine, remoteId: id, owner: session, keep: rest.keep === true, policy },
        ...{ startedAt: new Date().toISOString(), environment: session.environment },
        seenAt: Date.now(),
      });
      return entry.id;
    });
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
      for (const machine of new Set(kept.map((entry) => entry.machine))) {
        const mine = kept.filter((entry) => entry.machine === machine);
        // A link of its own, as the first of them was reached; closed after the look.
        const looker: Session = { environment: mine[0].environment, seesAll: true };
        await this.#refresh(machine, mine, looker, {});
        await this.leave(looker);
      }
      for (const listener of this.#listeners) listener();
    }, every);
    // The looks keep nothing alive: the host decides on what they find.
    Deno.unrefTimer(this.#checks);
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
        `Process ${entry.id} runs on ${entry.machine}: its watch page is there (\`ssh ` +
          `${entry.machine} portal watch\` prints its link), or \`portal attach ` +
          `${entry.machine}:${entry.remoteId}\` here joins it from a terminal.`,
      );
    }
    const link = await this.#link(session, entry.machine);
    const reply = await link.call(tool.name, { ...args, id: entry.remoteId }, control, entry.id)
      .catch((error) => {
        // The remote words its own ids: its words stay as they are, said to be about this one.
        if (!(error instanceof RemoteRefusal)) throw error;
        throw new PortalError(
          `Process ${entry.id} is process ${entry.remoteId} on ${entry.machine}, which answered: ` +
            error.said,
          error.kind,
          error.data.id === entry.remoteId ? { ...error.data, id: entry.id } : error.data,
        );
      });
    // The remote's question for this side's person (secret_relay.ts): this call asks it.
    if (needsInput(reply)) return reply;
    // The reply is about this process: its id is the one it may name.
    const local = this.#toLocal(
      tool,
      reply,
      entry.machine,
      (id) => id === entry.remoteId ? entry.id : undefined,
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
   * process_kill_all on `machine`: it kills what `session`'s link there started; if it cannot be
   * reached, each of those is a failure, saying why.
   */
  async #killAll(
    machine: string,
    tool: RoutedTool,
    session: Session,
    control: CallControl,
  ): Promise<Result> {
    try {
      const link = await this.#link(session, machine);
      return this.#toLocal(tool, await link.call(tool.name, {}, control), machine);
    } catch (error) {
      const mine = this.ids.visibleTo(session)
        .filter((entry) => entry.owner === session && entry.machine === machine);
      return { failed: mine.map((entry) => ({ id: entry.id, error: (error as Error).message })) };
    }
  }

  /**
   * `entries` (all on `machine`) as its process_list, asked through `session`'s link, tells: each
   * listed one's latest line; one no longer listed is gone there (an unkept one whose link
   * dropped, one cleaned up) and forgotten here too. A machine that does not answer (or whose
   * reply is refused) leaves them as last seen, marked unreachable.
   */
  async #refresh(
    machine: string,
    entries: RemoteEntry[],
    session: Session,
    control: CallControl,
  ): Promise<void> {
    let processes: Result[];
    try {
      const link = await this.#link(session, machine);
      const reply = await link.call(LIST.name, {}, control);
      processes = this.#toLocal(LIST, reply, machine).processes as Result[];
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
   * `session`'s link to `machine`, opened (again) if it has none alive. Calls at once share one
   * opening: each is chained on the one before, set before anything is awaited.
   */
  #link(session: Session, machine: string): Promise<RemoteLink> {
    const links = this.#links.get(session) ?? new Map<string, Promise<RemoteLink>>();
    this.#links.set(session, links);
    const open = async () => {
      const env = session.environment?.env ?? Deno.env.toObject();
      // ssh (or a person's transport) gets no PORTAL_* variable and no marked secret, as a program.
      const transport = transportOf(machine, env, this.#controlDir());
      try {
        return await RemoteLink.open(machine, transport, childEnvironment(env));
      } catch (error) {
        // A machine set up just now (PORTAL_REMOTE_INSTALL=auto) is tried once more.
        if (!transport.ssh || !(await installedAtFirstUse(machine, env))) throw error;
        return await RemoteLink.open(machine, transport, childEnvironment(env));
      }
    };
    // A failed opening (a bad name, an unreachable machine) is tried again by the next call.
    const next = (links.get(machine) ?? Promise.reject()).then(
      (link) => link.alive ? link : open(),
      open,
    );
    links.set(machine, next);
    return next;
  }

  /**
   * `machine`'s reply to `tool` with its process ids made local by `local` (and `machine` beside
   * a process's own); by default, in a list, a process this server did not start there (another
   * client's) is left out.
   */
  #toLocal(
    tool: RoutedTool,
    reply: Result,
    machine: string,
    local = (id: number) => this.ids.localOf(machine, id),
  ): Result {
    return relayedReply(tool.output, reply, local, machine, tool.name);
  }
}

/**
 * The machine a process_start names, if any: `machine`, or `host`, its deprecated name (both
 * only if they agree).
 */
function startMachine({ machine, host }: Args): string | undefined {
  if (machine !== undefined && host !== undefined && machine !== host) {
    throw new PortalError(
      `machine ${JSON.stringify(machine)} and host ${JSON.stringify(host)} name two machines: ` +
        "give machine alone (host is its deprecated name).",
    );
  }
  return (machine ?? host) as string | undefined;
}
