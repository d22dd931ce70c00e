/**
 * What ends the server's programs when the server itself cannot: a few lines
 * of `/bin/sh`, started with the first program, in a session of its own (so
 * signals to the server's process group miss it) and ignoring SIGHUP, SIGINT,
 * SIGTERM and SIGQUIT. Its stdin is a pipe whose write end only the server
 * holds; the server writes `+SID` for each session it starts (every program
 * leads one, so SID is its pid) and `-SID` once a session has no process
 * left. However the server ends (SIGKILL and crashes included) the kernel
 * closes that end, the watchdog reads end of file, SIGKILLs every process of
 * every session still listed (twice, 0.1 s apart, for processes forked during
 * the first pass), and exits. Linux finds the members in /proc/<pid>/stat;
 * macOS, which has neither /proc nor `pkill -s`, gets `kill -KILL -- -SID`:
 * the leader's process group only.
 *
 * A session id is a pid: once a session is empty the number may be reused,
 * so it must be released (see `session.ts`) before the watchdog could kill a
 * stranger with it.
 *
 * @module
 */
import { C, libc } from "../../../../ffi/libc.ts";
import { writeSome } from "../../../../ffi/fd_io.ts";
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

/** A watchdog that dies this often (someone killed it) is not started again. */
const MAX_STARTS = 3;
/** Pause before writing again to a pipe that was full (the watchdog was stopped). */
const RETRY_MS = 50;

const encoder = new TextEncoder();

const UNGUARDED = "programs will outlive the server if it is killed with SIGKILL.";

/** The one watchdog of this server. See the module doc. */
export class SessionWatchdog {
  #pid = 0;
  #fd = -1;
  readonly #watched = new Set<number>();
  /** What the pipe has not taken yet. ASCII only, so characters are bytes. */
  #backlog = "";
  #retry: ReturnType<typeof setTimeout> | undefined;
  #starts = 0;

  /** The watchdog's pid, 0 before the first program. */
  get pid(): number {
    return this.#pid;
  }

  /** Lists session `sid`: it is killed if the server dies. */
  watch(sid: number): void {
    if (this.#watched.has(sid)) return;
    this.#watched.add(sid);
    this.#send(`+${sid}\n`);
  }

  /** Forgets session `sid`, which has no process left. */
  release(sid: number): void {
    if (this.#watched.delete(sid)) this.#send(`-${sid}\n`);
  }

  #send(line: string): void {
    if (this.#fd < 0) {
      // (Re)started with the whole list.
      if (this.#starts >= MAX_STARTS || !this.#start()) return;
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
      // The pipe is full (the watchdog was stopped): the rest goes later.
      if (this.#backlog !== "") {
        this.#retry = setTimeout(() => this.#flush(), RETRY_MS);
        Deno.unrefTimer(this.#retry);
      }
      return;
    }
    // EPIPE: the watchdog died. Reap it and start another.
    libc().close(this.#fd);
    libc().waitpid(this.#pid, new Int32Array(1), C.WNOHANG);
    this.#fd = -1;
    if (this.#starts >= MAX_STARTS) {
      console.error("portal: the session watchdog keeps dying; " + UNGUARDED);
      return;
    }
    this.#send("");
  }

  /** Starts a watchdog told every watched session; false (with a warning) if it cannot. */
  #start(): boolean {
    this.#starts++;
    try {
      const pipe = openPipe("write");
      try {
        this.#pid = spawnSession({
          command: "the session watchdog (/bin/sh)",
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
      this.#backlog = [...this.#watched].map((sid) => `+${sid}\n`).join("");
      if (this.#starts > 1) console.error("portal: the session watchdog died; started another");
      return true;
    } catch (error) {
      console.error(
        `portal: ${(error as Error).message} ${UNGUARDED}`,
      );
      this.#starts = MAX_STARTS;
      return false;
    }
  }
}

/** The watchdog of this process, started with its first program. */
export const sessionWatchdog: SessionWatchdog = new SessionWatchdog();
