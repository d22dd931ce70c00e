/**
 * What ends the server's programs when the server itself cannot: a few lines
 * of `/bin/sh`, started with the first program, in a session of its own (so
 * signals to the server's process group miss it) and ignoring SIGHUP, SIGINT,
 * SIGTERM and SIGQUIT. Its stdin is a pipe whose write end only the server
 * holds; the server writes `+SID` for each session it starts (every program
 * leads one, so SID is its pid) and `-SID` once a session has no process
 * left. However the server ends (SIGKILL and crashes included) the kernel
 * closes that end, the sentinel reads end of file, SIGKILLs every process of
 * every session still listed (twice, 0.1 s apart, for processes forked during
 * the first pass), and exits. Linux finds the members in /proc/<pid>/stat;
 * macOS, which has neither /proc nor `pkill -s`, gets `kill -KILL -- -SID`:
 * the leader's process group only.
 *
 * The sentinel is guarded in turn: it is a child of the server, tracked by
 * the {@link childReaper}, so its death (someone SIGKILLed it) is known at
 * the SIGCHLD it causes, on Linux and macOS alike (macOS has no pidfd, and
 * needs none), and a new sentinel is started there and then, told every
 * session listed so far; a write that finds its pipe closed first does the
 * same. Only after a sentinel that died within a second of its start (a
 * `/bin/sh` that cannot run it, or a loop that kills it) does the next one
 * wait, 0.1 s doubling to 5 s, so that a crash loop costs little; when none
 * can be started at all, the server says on stderr that its programs are
 * unguarded.
 *
 * A session id is a pid: once a session is empty the number may be reused,
 * so it must be released (see `session.ts`) before the sentinel could kill a
 * stranger with it.
 *
 * @module
 */
import { libc } from "../../../../ffi/libc.ts";
import { C } from "../../../../ffi/os_constants.ts";
import { writeSome } from "../../../../ffi/fd_io.ts";
import { childReaper } from "../child_reaper.ts";
import { openPipe, spawnSession } from "../spawn.ts";

const SCRIPT = `trap '' HUP INT TERM QUIT
sids=' '
while read -r line; do
  case $line in
    +*) sids="$sids\${line#+} " ;;
    -*) s=\${line#-}
        case $sids in *" $s "*) sids="\${sids%%" $s "*} \${sids#*" $s "}" ;; esac ;;
  esac
done
[ "$sids" != ' ' ] || exit 0
for pass in 1 2; do
  if [ -r /proc/self/stat ]; then
    for dir in /proc/[0-9]*; do
      read -r stat < "$dir/stat" || continue
      set -- \${stat##*") "}
      case $sids in *" $4 "*) kill -KILL "\${dir#/proc/}" ;; esac
    done
  else
    for s in $sids; do kill -KILL -- "-$s"; done
  fi
  [ $pass = 2 ] || sleep 0.1 || sleep 1
done 2>/dev/null
`;

/** A sentinel that dies this soon after its start makes the next one wait (see the module doc). */
const QUICK_DEATH_MS = 1000;
const BACKOFF_MS = { first: 100, max: 5000 } as const;
/** Pause before writing again to a pipe that was full (the sentinel was stopped). */
const RETRY_MS = 50;

const encoder = new TextEncoder();

const UNGUARDED = "programs will outlive the server if it is killed with SIGKILL.";

/** The one sentinel of this server. See the module doc. */
export class SessionSentinel {
  #pid = 0;
  #fd = -1;
  readonly #guarded = new Set<number>();
  /** What the pipe has not taken yet. ASCII only, so characters are bytes. */
  #backlog = "";
  /** What is due later: the rest of the backlog (the pipe was full), or a start after a pause. */
  #retry: ReturnType<typeof setTimeout> | undefined;
  /** `performance.now()` of the current sentinel's start, and how many in a row died soon after. */
  #startedAt = 0;
  #quickDeaths = 0;
  /** None can be started: the programs are unguarded (and the server said so). */
  #givenUp = false;

  /** Lists session `sid`: it is killed if the server dies. */
  guard(sid: number): void {
    if (this.#guarded.has(sid)) return;
    this.#guarded.add(sid);
    this.#send(`+${sid}\n`);
  }

  /** Forgets session `sid`, which has no process left. */
  release(sid: number): void {
    if (this.#guarded.delete(sid)) this.#send(`-${sid}\n`);
  }

  #send(line: string): void {
    if (this.#fd < 0) {
      // (Re)started with the whole list.
      if (this.#givenUp || !this.#start()) return;
    } else {
      this.#backlog += line;
    }
    this.#flush();
  }

  #flush(): void {
    clearTimeout(this.#retry);
    this.#retry = undefined;
    if (this.#backlog === "") return;
    const { written, error } = writeSome(this.#fd, encoder.encode(this.#backlog));
    this.#backlog = this.#backlog.slice(written);
    if (error === 0) {
      // The pipe is full (the sentinel was stopped): the rest goes later.
      if (this.#backlog !== "") {
        this.#retry = setTimeout(() => this.#flush(), RETRY_MS);
        Deno.unrefTimer(this.#retry);
      }
      return;
    }
    // EPIPE: the sentinel died, and its SIGCHLD has not been handled yet.
    this.#died(this.#pid);
  }

  /**
   * Sentinel `pid` is dead: another takes over every guarded session at
   * once (none is needed while no session is guarded: the next one starts
   * it). A sentinel replaced already is ignored; the reaper reaps it.
   */
  #died(pid: number): void {
    if (pid !== this.#pid || this.#fd < 0) return;
    libc().close(this.#fd);
    this.#fd = -1;
    clearTimeout(this.#retry);
    this.#backlog = "";
    const quick = performance.now() - this.#startedAt < QUICK_DEATH_MS;
    this.#quickDeaths = quick ? this.#quickDeaths + 1 : 0;
    if (this.#quickDeaths === 0) {
      // Said once the new one holds the list: a server killed right after leaves nothing unguarded.
      if (this.#guarded.size > 0) this.#send("");
      console.error("portal: the session sentinel died; started another");
      return;
    }
    const wait = Math.min(BACKOFF_MS.first * 2 ** (this.#quickDeaths - 1), BACKOFF_MS.max);
    console.error(
      `portal: the session sentinel died as it started (${this.#quickDeaths} in a row); the ` +
        `next starts in ${wait / 1000} s, or with the next program. Until then ${UNGUARDED}`,
    );
    // The guarded sessions are sent with the start; a new session starts it sooner.
    this.#retry = setTimeout(() => this.#fd < 0 && this.#guarded.size > 0 && this.#send(""), wait);
    Deno.unrefTimer(this.#retry);
  }

  /** Starts a sentinel told every guarded session; false (with a warning) if it cannot. */
  #start(): boolean {
    try {
      const pipe = openPipe("write");
      try {
        this.#pid = spawnSession({
          command: "the session sentinel (/bin/sh)",
          path: "/bin/sh",
          argv: ["sh", "-c", SCRIPT],
          env: { PATH: "/usr/bin:/bin", LC_ALL: "C" },
          cwd: "/",
          stdio: [
            { fd: 0, dup: pipe.read },
            { fd: 1, open: "/dev/null", flags: C.O_RDWR },
            { fd: 2, dup: 1 },
          ],
        });
      } catch (error) {
        libc().close(pipe.write);
        throw error;
      } finally {
        libc().close(pipe.read);
      }
      this.#fd = pipe.write;
      this.#startedAt = performance.now();
      this.#backlog = [...this.#guarded].map((sid) => `+${sid}\n`).join("");
      const pid = this.#pid;
      childReaper.track(pid, () => this.#died(pid));
      return true;
    } catch (error) {
      console.error(`portal: ${(error as Error).message} ${UNGUARDED}`);
      this.#givenUp = true;
      return false;
    }
  }
}

/** The sentinel of this process, started with its first program. */
export const sessionSentinel: SessionSentinel = new SessionSentinel();
