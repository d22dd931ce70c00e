/**
 * The processes one session sees in its server's {@link ProcessPool}: those
 * it started, the kept ones, those no live session owns, or every one
 * (`session.seesAll`). It finds them by id and words what is not there, or
 * not running, for the agent: the messages name the tools to call instead.
 *
 * @module
 */
import { PortalError, quote } from "../../errors.ts";
import { type Policy, samePolicy } from "../policy/policy.ts";
import type { ManagedProcess } from "./managed_process.ts";
import type { PoolEntry, ProcessPool, Session } from "./pool.ts";

/** One session's view of the pool. */
export class SessionView {
  readonly #pool: ProcessPool;
  readonly #session: Session;

  constructor(pool: ProcessPool, session: Session) {
    this.#pool = pool;
    this.#session = session;
  }

  /** The processes this session sees, oldest first. */
  visible(): ManagedProcess[] {
    return this.#pool.entries().filter((entry) => this.#sees(entry)).map((e) => e.process);
  }

  /** Running processes, and ended ones with leftovers. */
  killable(): ManagedProcess[] {
    return this.visible().filter((p) => p.status === "running" || p.hasLeftovers);
  }

  /**
   * What `process_kill_all` ends: the killable processes this session owns
   * (every one, for a session that sees all), not the kept ones another
   * client, or an earlier connection, started: those are shared, and may be
   * what someone else relies on. Returns them, and the running ones it leaves.
   */
  killableOwn(): { own: ManagedProcess[]; left: ManagedProcess[] } {
    const owns = (p: ManagedProcess) =>
      this.#session.seesAll === true || this.#pool.get(p.id)?.owner === this.#session;
    const killable = this.killable();
    return {
      own: killable.filter(owns),
      left: killable.filter((p) => !owns(p) && p.status === "running"),
    };
  }

  /**
   * The process `id` a tool call names, which is now where the agent works
   * (attention.ts), or an error that says why this session cannot have it.
   */
  get(id: number): ManagedProcess {
    const entry = this.#pool.get(id);
    if (entry && this.#sees(entry)) {
      this.#pool.attention.named(id);
      return entry.process;
    }
    const why = this.#pool.goneWhy(id) === "left with its client"
      ? ": it belonged to a client that has left, and ended with it (it was not started with " +
        "keep: true)"
      : entry
      ? " you can use: it belongs to another client's session, and only processes started " +
        "with keep: true are shared between clients"
      : id >= this.#pool.nextId
      ? ""
      : id < this.#pool.firstId
      ? " here (an earlier server's on this records database, which keeps its records)"
      : " (it was cleaned up, or removed by its idle timeout)";
    throw new PortalError(
      `No process with id ${id}${why}. Call process_list to see the ids.`,
      "not_found",
      { id },
    );
  }

  /** The process `id` if it runs; else an error saying that it cannot be `verb`ed, and why. */
  running(id: number, verb: string): ManagedProcess {
    const process = this.get(id);
    if (process.status === "running") return process;
    throw notRunning(process, verb);
  }

  /** A name is unique among the running processes of the pool (every session's). */
  checkName(name: string): void {
    if (name === "") return;
    const taken = this.#pool.pick(name);
    if (!taken?.process.running) return;
    const whose = this.#sees(taken) ? `process ${taken.process.id}` : "another client's process";
    throw new PortalError(
      `The name ${quote(name)} is taken by ${whose}, which is running: choose another name, ` +
        "or use that process (process_list shows names).",
      "conflict",
      { name },
    );
  }

  #sees(entry: PoolEntry): boolean {
    const { owner, process } = entry;
    return sees(this.#session, { owner, keep: process.spec.keep, policy: process.policy });
  }
}

/** The error for `verb` on a process that has ended: how it ended, and what can still be done. */
export function notRunning(process: ManagedProcess, verb: string, more = ""): PortalError {
  const how = process.exit?.signal
    ? `by signal ${process.exit.signal}`
    : `with code ${process.exit?.code}`;
  const state = process.status === "killed" ? "it was killed" : "it has exited";
  return new PortalError(
    `Cannot ${verb} process ${process.id}: ${state} (${how})${more}. Its records can still ` +
      "be read with process_read or process_read_new; start it again with process_start.",
    "ended",
    { id: process.id },
  );
}

/** What decides who sees a process, wherever it runs (here, or on another machine). */
export interface Held {
  /** The session that started it; null once that one has left (a kept process lives on). */
  owner: Session | null;
  keep: boolean;
  /** The rules it was started under (undefined: none known). */
  policy: Policy | undefined;
}

/**
 * Whether `session` sees a process `held` so, local or remote: a session sees its own and
 * the kept ones (and those no live session owns), one that sees all every one; a session
 * under a policy only those started under the same rules.
 */
export function sees(session: Session, held: Held): boolean {
  if (session.seesAll === true || held.owner === session) return true;
  if (session.policy && !(held.policy && samePolicy(session.policy, held.policy))) return false;
  return held.owner === null || held.keep;
}
