/**
 * The C library, reached through `Deno.dlopen`: the symbols the POSIX
 * backends call, and the calls that need care (errno, and the variadic
 * `fcntl` and `ioctl`, whose argument goes where this ABI wants it). The
 * values of this OS are in os_constants.ts, chosen by what this module says
 * the OS is; a descriptor's flags are set in fd_flags.ts.
 *
 * The library is opened on first use, so importing this module costs nothing
 * and does nothing on Windows. Supported: Linux glibc (x86_64, aarch64) and
 * macOS (x86_64, arm64).
 *
 * @module
 */
const OS = Deno.build.os;
/** The C library is glibc's (Linux): the one place below src/platform.ts that tests the OS. */
export const IS_LINUX = OS === "linux";
/** The C library is macOS's libSystem. */
export const IS_DARWIN = OS === "darwin";

/**
 * Apple arm64 passes variadic arguments on the stack, not in registers, so a
 * call to `fcntl`/`ioctl` declared with plain parameters would hand the
 * callee garbage. Six dummy 64-bit parameters fill x2..x7 and push the real
 * argument to the first stack slot, where `va_arg` reads it. Elsewhere
 * (SysV x86_64, Linux aarch64) variadic integers travel like fixed ones.
 */
const VARIADIC_PAD: Deno.NativeType[] = IS_DARWIN && Deno.build.arch === "aarch64"
  ? ["i64", "i64", "i64", "i64", "i64", "i64"]
  : [];
const PAD_VALUES: bigint[] = VARIADIC_PAD.map(() => 0n);

const SYMBOLS = {
  openpty: { parameters: ["buffer", "buffer", "pointer", "pointer", "buffer"], result: "i32" },
  ttyname_r: { parameters: ["i32", "buffer", "usize"], result: "i32" },
  fcntl: { parameters: ["i32", "i32", ...VARIADIC_PAD, "i64"], result: "i32" },
  ioctl: { parameters: ["i32", "u64", ...VARIADIC_PAD, "buffer"], result: "i32" },
  /** `ioctl` with an integer argument (TIOCGPTPEER's flags). */
  ioctlInt: { name: "ioctl", parameters: ["i32", "u64", ...VARIADIC_PAD, "i64"], result: "i32" },
  read: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  pread: { parameters: ["i32", "buffer", "usize", "i64"], result: "isize" },
  write: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  close: { parameters: ["i32"], result: "i32" },
  pipe: { parameters: ["buffer"], result: "i32" },
  dup2: { parameters: ["i32", "i32"], result: "i32" },
  /** Without O_CREAT: the variadic mode is not read. */
  open: { parameters: ["buffer", "i32"], result: "i32" },
  socket: { parameters: ["i32", "i32", "i32"], result: "i32" },
  bind: { parameters: ["i32", "buffer", "u32"], result: "i32" },
  listen: { parameters: ["i32", "i32"], result: "i32" },
  accept: { parameters: ["i32", "pointer", "pointer"], result: "i32" },
  connect: { parameters: ["i32", "buffer", "u32"], result: "i32" },
  sendmsg: { parameters: ["i32", "buffer", "i32"], result: "isize" },
  shutdown: { parameters: ["i32", "i32"], result: "i32" },
  /** SO_PEERCRED on Linux: who is at the other end of a Unix socket. */
  getsockopt: { parameters: ["i32", "i32", "i32", "buffer", "buffer"], result: "i32" },
  /** macOS (and the BSDs): the peer's uid and gid. */
  getpeereid: { parameters: ["i32", "buffer", "buffer"], result: "i32", optional: true },
  /** Without O_CREAT: the variadic mode is not read. */
  openat: { parameters: ["i32", "buffer", "i32"], result: "i32" },
  mkdirat: { parameters: ["i32", "buffer", "u32"], result: "i32" },
  fchmod: { parameters: ["i32", "u32"], result: "i32" },
  /** Linux (glibc ≥ 2.28): a descriptor's owner and mode, one layout on every CPU. */
  statx: { parameters: ["i32", "buffer", "i32", "u32", "buffer"], result: "i32", optional: true },
  /** macOS: the 64-bit-inode `fstat` (a suffixed name on x86_64, the only one on arm64). */
  fstat: {
    name: IS_DARWIN && Deno.build.arch === "x86_64" ? "fstat$INODE64" : "fstat",
    parameters: ["i32", "buffer"],
    result: "i32",
    optional: true,
  },
  recvmsg: { parameters: ["i32", "buffer", "i32"], result: "isize" },
  /** Linux only: the wake-up fd of the readiness loop. */
  eventfd: { parameters: ["u32", "i32"], result: "i32", optional: true },
  /** Adds to the calling thread's nice value (Linux: that thread's alone). */
  nice: { parameters: ["i32"], result: "i32" },
  /** Runs on Deno's blocking pool so the JS thread stays free while it waits. */
  poll: { parameters: ["buffer", "u64", "i32"], result: "i32", nonblocking: true },
  /** `poll` with timeout 0 on the JS thread: a look, never a wait. */
  pollNow: { name: "poll", parameters: ["buffer", "u64", "i32"], result: "i32" },
  /** macOS `poll` reports POLLNVAL for devices (PTY masters included): select works. */
  select: {
    parameters: ["i32", "buffer", "buffer", "pointer", "pointer"],
    result: "i32",
    nonblocking: true,
  },
  /** Sleeps on Deno's blocking pool: precise where JS timers fire 1-2 ms late. */
  usleep: { parameters: ["u32"], result: "i32", nonblocking: true },
  posix_spawn: {
    parameters: ["buffer", "buffer", "buffer", "buffer", "buffer", "buffer"],
    result: "i32",
  },
  posix_spawnattr_init: { parameters: ["buffer"], result: "i32" },
  posix_spawnattr_destroy: { parameters: ["buffer"], result: "i32" },
  posix_spawnattr_setflags: { parameters: ["buffer", "i16"], result: "i32" },
  posix_spawnattr_setsigmask: { parameters: ["buffer", "buffer"], result: "i32" },
  posix_spawnattr_setsigdefault: { parameters: ["buffer", "buffer"], result: "i32" },
  sigemptyset: { parameters: ["buffer"], result: "i32" },
  sigfillset: { parameters: ["buffer"], result: "i32" },
  posix_spawn_file_actions_init: { parameters: ["buffer"], result: "i32" },
  posix_spawn_file_actions_destroy: { parameters: ["buffer"], result: "i32" },
  posix_spawn_file_actions_addopen: {
    parameters: ["buffer", "i32", "buffer", "i32", "u32"],
    result: "i32",
  },
  posix_spawn_file_actions_adddup2: { parameters: ["buffer", "i32", "i32"], result: "i32" },
  /** glibc ≥ 2.29, macOS ≥ 10.15. */
  posix_spawn_file_actions_addchdir_np: { parameters: ["buffer", "buffer"], result: "i32" },
  /** glibc ≥ 2.34; macOS has POSIX_SPAWN_CLOEXEC_DEFAULT instead. */
  posix_spawn_file_actions_addclosefrom_np: {
    parameters: ["buffer", "i32"],
    result: "i32",
    optional: true,
  },
  waitpid: { parameters: ["i32", "buffer", "i32"], result: "i32" },
  kill: { parameters: ["i32", "i32"], result: "i32" },
  tcgetpgrp: { parameters: ["i32"], result: "i32" },
  /** On a master it reports the slave's modes (Linux and macOS): echo, canonical input. */
  tcgetattr: { parameters: ["i32", "buffer"], result: "i32" },
  access: { parameters: ["buffer", "i32"], result: "i32" },
  strerror: { parameters: ["i32"], result: "pointer" },
  /** errno lives in thread-local storage; these return its address (glibc / macOS). */
  __errno_location: { parameters: [], result: "pointer", optional: true },
  __error: { parameters: [], result: "pointer", optional: true },
} as const satisfies Deno.ForeignLibraryInterface;

/** The opened symbols of libc. */
export type Libc = Deno.DynamicLibrary<typeof SYMBOLS>["symbols"];

const LIBRARY = IS_DARWIN ? "libSystem.B.dylib" : "libc.so.6";
let opened: Libc | null = null;

/**
 * Opens libc on first call (never on import) and returns its symbols, each
 * bound on its first use: binding costs about 0.15 ms a symbol, and a door
 * needs a dozen of the 57.
 */
export function libc(): Libc {
  if (opened === null) {
    if (!IS_LINUX && !IS_DARWIN) {
      throw new Error(`libc FFI is not available on ${OS}`);
    }
    const symbols = {} as Record<keyof typeof SYMBOLS, unknown>;
    for (const name of Object.keys(SYMBOLS) as (keyof typeof SYMBOLS)[]) {
      Object.defineProperty(symbols, name, {
        configurable: true,
        enumerable: true,
        get() {
          const bound = Deno.dlopen(LIBRARY, { [name]: SYMBOLS[name] }).symbols[name];
          Object.defineProperty(symbols, name, { value: bound, enumerable: true });
          return bound;
        },
      });
    }
    opened = symbols as Libc;
  }
  return opened;
}

/** Reads errno. Valid only right after a synchronous call on the JS thread. */
export function errno(): number {
  const s = libc();
  const where = (s.__errno_location ?? s.__error)!();
  return new Deno.UnsafePointerView(where!).getInt32();
}

/** The C library's description of an errno value, e.g. "No such file or directory". */
export function strerror(code: number): string {
  const text = libc().strerror(code);
  return text === null ? `errno ${code}` : Deno.UnsafePointerView.getCString(text);
}

/** `fcntl(fd, cmd, arg)` with the variadic argument placed where this ABI wants it. */
export function fcntl(fd: number, cmd: number, arg = 0): number {
  const call = libc().fcntl as unknown as (...args: (number | bigint)[]) => number;
  return call(fd, cmd, ...PAD_VALUES, BigInt(arg));
}

/** `ioctl(fd, request, argp)` with the variadic pointer placed where this ABI wants it. */
export function ioctl(fd: number, request: bigint, arg: Uint8Array): number {
  const call = libc().ioctl as unknown as (...args: (number | bigint | Uint8Array)[]) => number;
  return call(fd, request, ...PAD_VALUES, arg);
}

/** `ioctl(fd, request, n)` with an integer argument (TIOCGPTPEER's flags), placed likewise. */
export function ioctlInt(fd: number, request: bigint, arg: number): number {
  const call = libc().ioctlInt as unknown as (...args: (number | bigint)[]) => number;
  return call(fd, request, ...PAD_VALUES, BigInt(arg));
}
