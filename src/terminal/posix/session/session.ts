/**
 * The session a program leads: both POSIX backends start every program with
 * `setsid`, so its pid is its session id, and everything it starts (children,
 * background jobs in groups of their own, daemons that merely `setpgid`)
 * stays in it. Killing a program kills its session; what is left of the
 * session after the program exited is its leftovers (`sh -c 'sleep 300 &'`),
 * which a later kill ends; and while anything of it may be alive, the
 * {@link sessionSentinel} lists it, so it dies even if the server is
 * SIGKILLed. Only a process that starts a session of its own escapes.
 *
 * @module
 */
import { libc } from "../../../../ffi/libc.ts";
import { delay } from "../../../async.ts";
import { SIGNALS } from "../../../signals.ts";
import { sessionGroups } from "./groups.ts";
import { sessionSentinel } from "./sentinel.ts";

/** Pause between two looks at a session being ended. */
const POLL_MS = 20;
/** After SIGKILL, how long its members may take to be gone before `end` gives up. */
const KILL_WAIT_MS = 1000;
/** How often sessions that outlived their leader are checked, to forget them once empty. */
const SWEEP_MS = 2000;

/** A program's session. See the module doc. */
export class PosixSession {
  readonly sid: number;
  #leaderReaped = false;
  /** Seen empty after the leader was reaped: its id may belong to a stranger now. */
  #gone = false;

  /** Call right after spawning the leader, `sid` being its pid. */
  constructor(sid: number) {
    this.sid = sid;
    sessionSentinel.guard(sid);
  }

  /** The leader was reaped: from now on the session lives while members are left. */
  leaderReaped(): void {
    this.#leaderReaped = true;
    if (this.groups().length > 0) {
      outlived.add(this);
      sweepSoon();
    }
  }

  /** Process groups with a live member. Once the leader is reaped and none is left, none ever. */
  groups(): number[] {
    if (this.#gone) return [];
    let groups = sessionGroups(this.sid);
    if (!this.#leaderReaped || groups.length > 0) return groups;
    // Only a scan begun after the reap may say the session is empty: one
    // begun before it can miss what the leader forked while the scan ran.
    groups = sessionGroups(this.sid, { fresh: true });
    if (groups.length === 0) {
      this.#gone = true;
      outlived.delete(this);
      sessionSentinel.release(this.sid);
    }
    return groups;
  }

  /** Whether processes of the session outlive its reaped leader. */
  hasLeftovers(): boolean {
    return this.#leaderReaped && this.groups().length > 0;
  }

  /** Sends `signals`, in order, to every group of the session and to `extra` groups. */
  signal(signals: number[], extra: number[] = []): void {
    const groups = new Set([...this.groups(), ...extra]);
    for (const signo of signals) for (const group of groups) libc().kill(-group, signo);
  }

  /**
   * Ends what is left of the session once its leader was reaped: SIGTERM
   * (with SIGCONT, so stopped jobs act on it), SIGKILL after `graceMs`.
   * Resolves once nothing is left, or a second after SIGKILL.
   */
  async end(graceMs: number): Promise<void> {
    if (!this.hasLeftovers()) return;
    this.signal([SIGNALS.SIGTERM, SIGNALS.SIGCONT]);
    if (await this.#emptiedWithin(graceMs)) return;
    this.signal([SIGNALS.SIGKILL]);
    await this.#emptiedWithin(KILL_WAIT_MS);
  }

  async #emptiedWithin(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.hasLeftovers()) {
      if (Date.now() >= deadline) return false;
      await delay(POLL_MS);
    }
    return true;
  }
}

/** Sessions whose leader is gone but whose members live on. */
const outlived = new Set<PosixSession>();
let sweepTimer: ReturnType<typeof setInterval> | undefined;

/** Checks {@link outlived} now and then, so the sentinel forgets each once it is empty. */
function sweepSoon(): void {
  if (sweepTimer !== undefined) return;
  sweepTimer = setInterval(() => {
    for (const session of outlived) session.groups();
    if (outlived.size === 0) {
      clearInterval(sweepTimer);
      sweepTimer = undefined;
    }
  }, SWEEP_MS);
  Deno.unrefTimer(sweepTimer);
}
