/**
 * `posix_spawn` (never `fork`: the runtime is multi-threaded) of a program as
 * the leader of a new session, with fds 0-2 set up by the caller and nothing
 * else inherited: the one way every POSIX child of the server starts (PTY
 * programs, pipe programs, the session sentinel). The child is ours alone:
 * Deno never waits for it, so {@link childReaper} reaps it without a race.
 *
 * @module
 */
import { errno, libc, strerror } from "../../../ffi/libc.ts";
import { addStatusFlags, setCloexec } from "../../../ffi/fd_flags.ts";
import { C } from "../../../ffi/os_constants.ts";
import { cString, cStringArray } from "../../../ffi/c_strings.ts";
import { PortalError } from "../../errors.ts";

/** What one of the child's fds becomes (0-2, then any it reads from): a path opened, or ours copied. */
export type StdioAction =
  | { fd: number; open: string; flags: number }
  | { fd: number; dup: number };

/** A program to start; `command` is the name the agent gave, for messages. */
export interface SpawnSpec {
  command: string;
  path: string;
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  stdio: StdioAction[];
}

/**
 * Starts `spec.path` in a new session (so its pid is its session and process
 * group id), with the signal mask emptied and every handler reset (Deno
 * ignores SIGPIPE, which children would inherit), `spec.stdio` applied in
 * order, no other fds, and `spec.cwd`. Returns the pid; throws
 * {@link PortalError} saying why it could not start.
 */
export function spawnSession(spec: SpawnSpec): number {
  const { command, path, cwd } = spec;
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
      for (const action of spec.stdio) {
        if ("open" in action) {
          const { fd, open, flags } = action;
          check(
            lib.posix_spawn_file_actions_addopen(actions, fd, cString(open), flags, 0),
            "addopen",
          );
        } else {
          check(lib.posix_spawn_file_actions_adddup2(actions, action.dup, action.fd), "adddup2");
        }
      }
      // Everything of ours is close-on-exec already; this also covers fds a
      // native library might have opened without it. (macOS: CLOEXEC_DEFAULT.)
      if (lib.posix_spawn_file_actions_addclosefrom_np !== null) {
        const first = Math.max(2, ...spec.stdio.map((action) => action.fd)) + 1;
        check(lib.posix_spawn_file_actions_addclosefrom_np(actions, first), "addclosefrom_np");
      }
      check(lib.posix_spawn_file_actions_addchdir_np(actions, cString(cwd)), "addchdir_np");
      const args = cStringArray(spec.argv);
      const envp = cStringArray(Object.entries(spec.env).map(([k, v]) => `${k}=${v}`));
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

/**
 * A pipe whose both ends are close-on-exec (children get them only through
 * {@link StdioAction}s) and whose end `ours` is O_NONBLOCK. Throws
 * {@link PortalError} when the fds run out.
 */
export function openPipe(ours: "read" | "write"): { read: number; write: number } {
  const fds = new Int32Array(2);
  if (libc().pipe(new Uint8Array(fds.buffer)) !== 0) {
    throw new PortalError(`Could not create a pipe: ${strerror(errno())}.`, "system");
  }
  const [read, write] = fds;
  // pipe2(O_CLOEXEC) is not on macOS; all of this runs on the JS thread, where
  // nothing can spawn between the two calls.
  setUpPair([read, write], ours === "read" ? read : write, "a pipe");
  return { read, write };
}

/**
 * Makes both of a new pair of fds (a pipe's ends, a PTY's master and slave)
 * close-on-exec and `nonblocking`, one of them, O_NONBLOCK; should that fail,
 * closes both and throws {@link PortalError} naming `what` they are.
 */
export function setUpPair(pair: [number, number], nonblocking: number, what: string): void {
  if (pair.every((fd) => setCloexec(fd)) && addStatusFlags(nonblocking, C.O_NONBLOCK)) return;
  const message = strerror(errno());
  for (const fd of pair) libc().close(fd);
  throw new PortalError(`Could not set up ${what}: ${message}.`, "system");
}
