/**
 * Every process of one server, whichever session started it: their ids (on
 * from the highest its records database has seen), the processes by id and
 * by name, which session owns each, and their idle timers. A session sees the pool through its own
 * {@link ProcessManager}: its own processes, the kept ones (`keep: true`) and
 * those no live session owns (a former host's, read back from the database).
 * A session that ends leaves its unkept processes to be killed
 * ({@link ProcessPool.leave}); kept ones stay for the next client.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ProcessManager } from "./manager.ts";
 * import { ProcessPool } from "./pool.ts";
 * import { portalPlace } from "../policy/sandbox_rules.ts";
 * import { RecordStore } from "../store/record_store.ts";
 *
 * const pool = new ProcessPool(new RecordStore(":memory:"), portalPlace({}, ":memory:"));
 * const first = new ProcessManager(pool);
 * const kept = await first.start({ command: "sleep", args: ["10"], keep: true, name: "nap" });
 * const plain = await first.start({ command: "sleep", args: ["10"] });
 * await pool.leave(first.session);
 * const next = new ProcessManager(pool);
 * assert.deepEqual(next.list().map((p) => [p.id, p.name, p.status]), [[kept.id, "nap", "running"]]);
 * assert.equal(pool.get(plain.id), undefined);
 * await next.shutdown();
 * ```
 * @module
 */
import { FULL_ACCESS, type Policy, policyOfView, type PolicyView } from "../policy/policy.ts";
import { sandboxOf, type SandboxPlace } from "../policy/sandbox_rules.ts";
import type { RecordStore } from "../store/record_store.ts";
import { earlierSpec, type LaunchSpec } from "../model/schema.ts";
import { spawnPipe, spawnPty } from "../../terminal/backends.ts";
import { RecordedTerminal } from "../../terminal/recorded.ts";
import { launchWith } from "../shell/injection.ts";
import { pickProcess } from "../model/process_target.ts";
import type { Pattern } from "../pattern/pattern.ts";
import { Attention } from "./attention.ts";
import { IdleTimeouts } from "./idle_timeout.ts";
import { ManagedProcess } from "./managed_process.ts";

/** One client's connection (an MCP session); its identity is the object. */
export interface Session {
  /** Sees every process of the pool (`--share-processes`, or a person's `portal ps`). */
  readonly seesAll?: boolean;
  /**
   * The client's own working directory and environment (a door's, sent to
   * its host): what a program it starts inherits, and where `secret_env`
   * looks. Default: this process's.
   */
  readonly environment?: ClientEnvironment;
  /**
   * The person's rules for the programs this session starts (its door's
   * `PORTAL_POLICY`). A session with a policy sees only the processes that
   * run under the same rules: a kept program started without them is not a
   * way around them.
   */
  readonly policy?: Policy;
}

/** Where a client runs: its working directory and its environment variables. */
export interface ClientEnvironment {
  cwd: string;
  env: Record<string, string>;
}

/** A process and the session it belongs to (null: none alive, e.g. a former host's). */
export interface PoolEntry {
  readonly process: ManagedProcess;
  owner: Session | null;
}

/** Why an id is not in the pool any more, for the error that names it. */
export type Gone = "cleaned up" | "left with its client";

/** The processes of one server, by id. */
export class ProcessPool {
  readonly store: RecordStore;
  /** The first id of this server: lower ones were a former server's, on the same database. */
  readonly firstId: number;
  #nextId: number;
  /** The process the agent's latest call named, whichever session made it. */
  readonly attention: Attention = new Attention();
  /** Portal's own files, hidden from every sandboxed program, and where its stub goes. */
  readonly sandboxPlace: SandboxPlace;
  readonly #entries = new Map<number, PoolEntry>();
  /** Ids that left the pool, and how: a later call on one says why it is not there. */
  readonly #gone = new Map<number, Gone>();
  readonly #listeners = new Set<() => void>();
  /** The idle timeout: no read or write for `timeout_ms` → kill and remove all data. */
  readonly #idle: IdleTimeouts<ManagedProcess> = new IdleTimeouts(async (process) => {
    // A person typing into it (the watch page) is attention too.
    if (process.watched.controlledBy === "person") {
      return this.#idle.arm(process, process.spec.timeout_ms);
    }
    await process.kill();
    if (this.get(process.id)?.process === process) this.remove(process, "cleaned up");
  });

  /**
   * Ids go on after the highest id the store has seen; `sandboxPlace`:
   * Portal's own files, which every sandbox hides (sandbox_rules.ts's `portalPlace`).
   */
  constructor(store: RecordStore, sandboxPlace: SandboxPlace) {
    this.store = store;
    this.sandboxPlace = sandboxPlace;
    this.firstId = this.#nextId = store.highestProcessId() + 1;
  }

  /** The id the next process started will get. */
  get nextId(): number {
    return this.#nextId;
  }

  /** Takes the next id for a process held elsewhere (another machine's: src/remote/), so no process here gets it. */
  takeId(): number {
    return this.#nextId++;
  }

  /**
   * Starts `spec` for `owner` (its program on pipes or, with `spec.pty`, on
   * a new terminal with a screen), in its environment and under its policy,
   * under the next id (throws a PortalError when it cannot start), and arms
   * its idle timer. `prompt`: `spec.prompt` compiled.
   */
  start(spec: LaunchSpec, owner: Session, prompt: Pattern | null): ManagedProcess {
    const { environment, policy = FULL_ACCESS } = owner;
    // Nothing starts whose records could not be stored (a full disk).
    this.store.checkWritable();
    const inject = spec.pty && spec.shell_integration;
    const sandbox = sandboxOf(policy, this.sandboxPlace);
    const { launch, injection } = launchWith(spec, inject, environment?.env, sandbox);
    const process = new ManagedProcess(this.#nextId, spec, this.store, {
      prompt,
      onEnd: (p) => this.#ended(p),
      attention: this.attention,
      terminal: (events) => (spec.pty ? spawnPty : spawnPipe)(launch, events),
      injection,
      policy,
      startedAt: new Date(),
    });
    this.#nextId++;
    this.attention.named(process.id);
    this.#entries.set(process.id, { process, owner });
    this.changed();
    this.store.saveProcess(process.describe(), { now: true });
    this.#idle.arm(process, timeoutOf(process));
    return process;
  }

  /** Marks agent interaction (a read or a write), which restarts the idle timeout. */
  touch(process: ManagedProcess): ManagedProcess {
    process.touch();
    this.#idle.arm(process, timeoutOf(process));
    return process;
  }

  /** Runs `work` (typing, waiting) with the idle timeout held off while the agent waits. */
  async holding<T>(process: ManagedProcess, work: () => Promise<T>): Promise<T> {
    this.#idle.hold(process);
    try {
      return await work();
    } finally {
      process.touch();
      this.#idle.release(process, timeoutOf(process));
    }
  }

  /**
   * Takes over what an earlier host left in the database: its kept
   * processes, and those it still held when it died (now `killed`: its
   * sentinel ended them). They are not started again (nothing is injected
   * into them), they are ended, every session under the rules they ran under
   * sees them, and their records can be read (a PTY's screen drawn from
   * them). Returns how many.
   */
  adoptEarlier(): number {
    const rows = this.store.restorableProcesses();
    for (const row of rows) {
      const process = new ManagedProcess(row.id, earlierSpec(row), this.store, {
        prompt: null,
        onEnd: () => {},
        attention: this.attention,
        terminal: () => new RecordedTerminal(row.os_pid),
        injection: null,
        policy: row.policy ? policyOfView(row.policy as PolicyView) : FULL_ACCESS,
        startedAt: new Date(row.started_at),
        stored: this.store.recordStats(row.id),
        ended: {
          at: new Date(row.ended_at ?? Date.now()),
          status: row.status === "running" ? "killed" : row.status,
          exit: { code: row.exit_code, signal: row.exit_signal },
        },
      });
      this.#entries.set(row.id, { process, owner: null });
      if (row.status === "running") this.store.saveProcess(process.describe());
    }
    return rows.length;
  }

  get(id: number): PoolEntry | undefined {
    return this.#entries.get(id);
  }

  /** Why `id` is not here, when it was once (this host's lifetime). */
  goneWhy(id: number): Gone | undefined {
    return this.#gone.get(id);
  }

  entries(): PoolEntry[] {
    return [...this.#entries.values()];
  }

  /** The process `target` means: an id, or a name (see process_target.ts). */
  pick(target: string): PoolEntry | undefined {
    const pickable = this.entries().map(({ process }) => ({
      id: process.id,
      name: process.spec.name,
      running: process.running,
    }));
    const picked = pickProcess(pickable, target);
    return picked && this.get(picked.id);
  }

  /** Forgets `process` and everything stored about it; the caller made sure it has ended. */
  remove(process: ManagedProcess, why: Gone): void {
    this.store.deleteProcess(process.id); // First: it fails while the file cannot be written.
    this.#drop(process, why);
  }

  /**
   * `session` ended: its processes that are not kept are killed (waiting at
   * most as long as a kill may take) and leave the pool; their records stay
   * in the database unless `deleteRecords`. Kept ones stay, owned by no one.
   */
  async leave(session: Session, options: { deleteRecords?: boolean } = {}): Promise<void> {
    const own = this.entries().filter((entry) => entry.owner === session);
    for (const entry of own) if (entry.process.spec.keep) entry.owner = null;
    const leaving = own.filter((entry) => !entry.process.spec.keep).map((e) => e.process);
    // Said from now, not once the kill is done: a call meanwhile hears where the process went.
    for (const process of leaving) this.#gone.set(process.id, "left with its client");
    await Promise.allSettled(leaving.map((process) => process.kill()));
    for (const process of leaving) {
      if (this.get(process.id)?.process !== process) continue;
      if (options.deleteRecords) this.remove(process, "left with its client");
      else this.#drop(process, "left with its client");
    }
    this.changed();
  }

  /** Whether a kept process still runs (a host stays up for it). */
  get keepsRunning(): boolean {
    return this.entries().some(({ process }) => process.spec.keep && process.running);
  }

  /** Calls `listener` whenever a process comes, goes, or ends; returns how to stop. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells the listeners (a process came, went or ended). */
  changed(): void {
    for (const listener of this.#listeners) listener();
  }

  #ended(process: ManagedProcess): void {
    this.#idle.clear(process);
    if (this.get(process.id)?.process === process) this.store.saveProcess(process.describe());
    this.changed();
  }

  #drop(process: ManagedProcess, why: Gone): void {
    this.#entries.delete(process.id);
    this.#gone.set(process.id, why);
    this.#idle.clear(process);
    process.dispose();
    this.changed();
  }
}

/** The idle timeout that applies now: only a running process has one. */
function timeoutOf(process: ManagedProcess): number {
  return process.status === "running" ? process.spec.timeout_ms : 0;
}
