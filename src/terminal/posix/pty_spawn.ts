/**
 * Starting a program on a new pseudo-terminal: `openpty`, then `posix_spawn`
 * (never `fork`: the runtime is multi-threaded) of the program as the leader
 * of a new session on the slave, which becomes its controlling terminal.
 *
 * @module
 */
import {
  addStatusFlags,
  C,
  cString,
  cStringArray,
  errno,
  libc,
  setCloexec,
  strerror,
  winsize,
} from "../../../ffi/libc.ts";
import { PortalError } from "../../errors.ts";
import { prepareLaunch } from "../launch.ts";
import type { SpawnOptions, Terminal, TerminalEvents } from "../terminal.ts";
import { isExecutableFile, resolveExecutable } from "./executable.ts";
import { PtyTerminal } from "./pty_terminal.ts";

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
  const { path, env } = prepareLaunch(opts, { pty: true, findExecutable: resolveExecutable });
  const argv = [opts.command, ...opts.args];
  const viaHelper = CTTY_HELPER !== null && isExecutableFile(CTTY_HELPER);
  const { master, slave } = openPty(opts.cols, opts.rows);
  let pid: number;
  let terminal: string;
  try {
    const [exe, args] = viaHelper
      ? [CTTY_HELPER!, ["perl", "-e", CTTY_SCRIPT, path, ...argv]]
      : [path, argv];
    terminal = slavePath(slave);
    pid = spawnOnSlave(opts.command, exe, args, env, terminal, opts.cwd);
  } catch (error) {
    libc().close(master);
    throw error;
  } finally {
    libc().close(slave);
  }
  return new PtyTerminal(pid, master, terminal, events);
}

/** A master (close-on-exec, nonblocking) and its slave (close-on-exec), sized. */
function openPty(cols: number, rows: number): { master: number; slave: number } {
  const master = new Int32Array(1);
  const slave = new Int32Array(1);
  if (libc().openpty(master, slave, null, null, winsize(cols, rows)) !== 0) {
    throw new PortalError(`Could not open a pseudo-terminal: ${strerror(errno())}.`);
  }
  // openpty has no close-on-exec option: set it before anything else can spawn.
  const ok = setCloexec(master[0]) && setCloexec(slave[0]) &&
    addStatusFlags(master[0], C.O_NONBLOCK);
  if (!ok) {
    const message = strerror(errno());
    libc().close(master[0]);
    libc().close(slave[0]);
    throw new PortalError(`Could not set up the pseudo-terminal: ${message}.`);
  }
  return { master: master[0], slave: slave[0] };
}

function slavePath(slave: number): string {
  const buf = new Uint8Array(256);
  const rc = libc().ttyname_r(slave, buf, BigInt(buf.length));
  if (rc !== 0) throw new PortalError(`Could not name the pseudo-terminal: ${strerror(rc)}.`);
  return new TextDecoder().decode(buf.subarray(0, buf.indexOf(0)));
}

/**
 * Spawns `path` as a session leader with the slave (its path) as fds 0-2 (opened, not
 * inherited, so the new session acquires it as controlling terminal), the
 * signal mask emptied and every handler reset (Deno ignores SIGPIPE, which
 * children would inherit), no other fds, and `cwd`.
 */
function spawnOnSlave(
  command: string,
  path: string,
  argv: string[],
  env: Record<string, string>,
  slave: string,
  cwd: string,
): number {
  const lib = libc();
  const check = (rc: number, what: string) => {
    if (rc !== 0) throw new PortalError(`Could not start ${command}: ${what}: ${strerror(rc)}.`);
  };
  const attr = new Uint8Array(C.SIZEOF_SPAWNATTR);
  const actions = new Uint8Array(C.SIZEOF_FILE_ACTIONS);
  const noSignals = new Uint8Array(C.SIZEOF_SIGSET);
  const allSignals = new Uint8Array(C.SIZEOF_SIGSET);
  lib.sigemptyset(noSignals);
  lib.sigfillset(allSignals);
  check(lib.posix_spawnattr_init(attr), "posix_spawnattr_init");
  try {
    check(lib.posix_spawnattr_setsigmask(attr, noSignals), "setsigmask");
    check(lib.posix_spawnattr_setsigdefault(attr, allSignals), "setsigdefault");
    const flags = C.POSIX_SPAWN_SETSID | C.POSIX_SPAWN_SETSIGMASK | C.POSIX_SPAWN_SETSIGDEF |
      C.POSIX_SPAWN_CLOEXEC_DEFAULT;
    check(lib.posix_spawnattr_setflags(attr, flags), "setflags");
    check(lib.posix_spawn_file_actions_init(actions), "posix_spawn_file_actions_init");
    try {
      check(
        lib.posix_spawn_file_actions_addopen(actions, 0, cString(slave), C.O_RDWR, 0),
        "addopen",
      );
      check(lib.posix_spawn_file_actions_adddup2(actions, 0, 1), "adddup2");
      check(lib.posix_spawn_file_actions_adddup2(actions, 0, 2), "adddup2");
      // Everything of ours is close-on-exec already; this also covers fds a
      // native library might have opened without it. (macOS: CLOEXEC_DEFAULT.)
      if (lib.posix_spawn_file_actions_addclosefrom_np !== null) {
        check(lib.posix_spawn_file_actions_addclosefrom_np(actions, 3), "addclosefrom_np");
      }
      check(lib.posix_spawn_file_actions_addchdir_np(actions, cString(cwd)), "addchdir_np");
      const args = cStringArray(argv);
      const envp = cStringArray(Object.entries(env).map(([k, v]) => `${k}=${v}`));
      const pid = new Int32Array(1);
      const rc = lib.posix_spawn(pid, cString(path), actions, attr, args.array, envp.array);
      if (rc !== 0) throw spawnError(command, path, cwd, rc);
      return pid[0];
    } finally {
      lib.posix_spawn_file_actions_destroy(actions);
    }
  } finally {
    lib.posix_spawnattr_destroy(attr);
  }
}

function spawnError(command: string, path: string, cwd: string, code: number): PortalError {
  if (code === C.ENOEXEC) {
    return new PortalError(
      `Cannot run ${command}: ${path} is not a program this system can execute. If it is a ` +
        "script, give it a #! line or run its interpreter with the script as an argument.",
    );
  }
  if (code === C.EACCES) {
    return new PortalError(
      `Cannot run ${command}: permission denied on ${path} or on the directory ${cwd}.`,
    );
  }
  return new PortalError(
    `Cannot run ${command} (${path}) in ${cwd}: ${strerror(code)}. ` +
      "Check that the program and the directory exist.",
  );
}
