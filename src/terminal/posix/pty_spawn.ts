/**
 * Starting a program on a new pseudo-terminal: `openpty`, then `posix_spawn`
 * (never `fork`: the runtime is multi-threaded) of the program as the leader
 * of a new session on the slave, which becomes its controlling terminal.
 *
 * @module
 */
import { errno, libc, strerror } from "../../../ffi/libc.ts";
import { C } from "../../../ffi/os_constants.ts";
import { winsize } from "../../../ffi/terminal_calls.ts";
import { PortalError } from "../../errors.ts";
import { prepareLaunch } from "../launch.ts";
import type { SpawnOptions, Terminal, TerminalEvents } from "../terminal.ts";
import { confine } from "./bubblewrap.ts";
import { isExecutableFile, resolveExecutable } from "./executable.ts";
import { PtyTerminal } from "./pty_terminal.ts";
import { setUpPair, spawnSession } from "./spawn.ts";

/**
 * macOS runs posix_spawn's file actions before it makes the new session, so
 * opening the slave does not make it the controlling terminal: no Ctrl-C,
 * no job control, no /dev/tty (sudo, ssh password prompts). perl, shipped
 * with macOS, claims it (TIOCSCTTY) and then execs the program in place:
 * same pid, same environment, signals already reset by posix_spawn.
 */
const CTTY_HELPER = C.SPAWN_OPEN_ACQUIRES_CTTY ? null : "/usr/bin/perl";
const CTTY_SCRIPT = `ioctl(STDIN, ${C.TIOCSCTTY}, 0) or die "portal: TIOCSCTTY: $!\\n"; ` +
  'my $path = shift; exec { $path } @ARGV or die "portal: exec $path: $!\\n";';

/**
 * Starts `opts.command` on a new pseudo-terminal, as the leader of a new
 * session whose controlling terminal it is. Returns at once; output and exit
 * arrive through `events`, never before this function returns. Throws
 * {@link PortalError} if the program cannot be started.
 */
export function spawnPosixPty(opts: SpawnOptions, events: TerminalEvents): Terminal {
  const { path, argv, env, files = [], wrappers = 0 } = prepareLaunch(opts, {
    pty: true,
    findExecutable: resolveExecutable,
    confine,
  });
  const viaHelper = CTTY_HELPER !== null && isExecutableFile(CTTY_HELPER);
  const { master, slave } = openPty(opts.cols, opts.rows);
  let pid: number;
  let terminal: string;
  try {
    const [exe, args] = viaHelper
      ? [CTTY_HELPER!, ["perl", "-e", CTTY_SCRIPT, path, ...argv]]
      : [path, argv];
    terminal = slavePath(slave);
    // The slave is opened, not inherited, so the new session acquires it as
    // its controlling terminal.
    const stdio = [
      { fd: 0, open: terminal, flags: C.O_RDWR },
      { fd: 1, dup: 0 },
      { fd: 2, dup: 0 },
      ...files.map((open, i) => ({ fd: 3 + i, open, flags: C.O_RDONLY })),
    ];
    pid = spawnSession({ command: opts.command, path: exe, argv: args, env, cwd: opts.cwd, stdio });
  } catch (error) {
    libc().close(master);
    throw error;
  } finally {
    libc().close(slave);
  }
  return new PtyTerminal(pid, master, terminal, events, wrappers);
}

/** A master (close-on-exec, nonblocking) and its slave (close-on-exec), sized. */
function openPty(cols: number, rows: number): { master: number; slave: number } {
  const master = new Int32Array(1);
  const slave = new Int32Array(1);
  if (libc().openpty(master, slave, null, null, winsize(cols, rows)) !== 0) {
    throw new PortalError(`Could not open a pseudo-terminal: ${strerror(errno())}.`, "system");
  }
  // openpty has no close-on-exec option: set it before anything else can spawn.
  setUpPair([master[0], slave[0]], master[0], "the pseudo-terminal");
  return { master: master[0], slave: slave[0] };
}

function slavePath(slave: number): string {
  const buf = new Uint8Array(256);
  const rc = libc().ttyname_r(slave, buf, BigInt(buf.length));
  if (rc !== 0) {
    throw new PortalError(`Could not name the pseudo-terminal: ${strerror(rc)}.`, "system");
  }
  return new TextDecoder().decode(buf.subarray(0, buf.indexOf(0)));
}
