/**
 * The C library, reached through `Deno.dlopen`: the symbols the PTY backend
 * needs, the constants, struct sizes and behaviours of this OS, and small
 * typed helpers. The POSIX modules read how Linux and macOS differ from
 * {@link C} rather than test the OS themselves.
 *
 * The library is opened on first use, so importing this module costs nothing
 * and does nothing on Windows. Supported: Linux glibc (x86_64, aarch64: the
 * asm-generic values below hold for both) and macOS (x86_64, arm64).
 *
 * @module
 */

const OS = Deno.build.os;
const IS_DARWIN = OS === "darwin";

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
  write: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  close: { parameters: ["i32"], result: "i32" },
  pipe: { parameters: ["buffer"], result: "i32" },
  /** Linux only: the wake-up fd of the readiness loop. */
  eventfd: { parameters: ["u32", "i32"], result: "i32", optional: true },
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

let opened: Libc | null = null;

/** Opens libc on first call (never on import) and returns its symbols. */
export function libc(): Libc {
  if (opened === null) {
    if (OS !== "linux" && !IS_DARWIN) {
      throw new Error(`libc FFI is not available on ${OS}`);
    }
    opened = Deno.dlopen(IS_DARWIN ? "libSystem.B.dylib" : "libc.so.6", SYMBOLS).symbols;
  }
  return opened;
}

/** Constants, struct sizes and behaviours that differ between Linux (glibc) and macOS. */
export interface OsConstants {
  O_RDWR: number;
  O_NONBLOCK: number;
  O_CLOEXEC: number;
  F_GETFD: number;
  F_SETFD: number;
  F_GETFL: number;
  F_SETFL: number;
  FD_CLOEXEC: number;
  TIOCSWINSZ: bigint;
  /** How many bytes a read would return now (FIONREAD). */
  FIONREAD: bigint;
  /** A new fd on a master's slave, without its path (Linux ≥ 4.13; 0n: none). */
  TIOCGPTPEER: bigint;
  O_NOCTTY: number;
  /** fcntl command that sets a pipe's capacity (Linux); 0 where pipes cannot be resized. */
  F_SETPIPE_SZ: number;
  /** Makes the terminal on the given fd the caller's controlling terminal. */
  TIOCSCTTY: number;
  EINTR: number;
  EIO: number;
  EAGAIN: number;
  ENOENT: number;
  EACCES: number;
  ENOEXEC: number;
  ECHILD: number;
  ESRCH: number;
  EPERM: number;
  POLLIN: number;
  POLLOUT: number;
  POLLERR: number;
  POLLHUP: number;
  POLLNVAL: number;
  WNOHANG: number;
  X_OK: number;
  POSIX_SPAWN_SETSIGDEF: number;
  POSIX_SPAWN_SETSIGMASK: number;
  POSIX_SPAWN_SETSID: number;
  /** macOS only (0 on Linux): close every fd not named in the file actions. */
  POSIX_SPAWN_CLOEXEC_DEFAULT: number;
  SIZEOF_SPAWNATTR: number;
  SIZEOF_FILE_ACTIONS: number;
  SIZEOF_SIGSET: number;
  /** Both OSes: 128 bytes, bit `fd % 8` of byte `fd / 8` on little-endian CPUs. */
  SIZEOF_FD_SET: number;
  FD_SETSIZE: number;
  /** Whether `poll` works on devices; macOS `poll` reports POLLNVAL for them (PTY masters too). */
  POLL_HANDLES_DEVICES: boolean;
  /**
   * Whether opening a terminal in posix_spawn's file actions makes it the
   * controlling terminal of the POSIX_SPAWN_SETSID session: glibc makes the
   * session first, macOS runs the file actions first.
   */
  SPAWN_OPEN_ACQUIRES_CTTY: boolean;
  /** Whether /proc/<pid>/stat exists, with each process's group and session (Linux). */
  PROC_STAT: boolean;
  /** `struct termios`: its size, and where `c_lflag` sits (tcflag_t: 4 bytes, macOS 8). */
  SIZEOF_TERMIOS: number;
  TERMIOS_LFLAG_OFFSET: number;
  /** c_lflag bits: input is echoed; input is read line by line (canonical mode). */
  ECHO: number;
  ICANON: number;
}

const LINUX: OsConstants = {
  O_RDWR: 2,
  O_NONBLOCK: 0o4000,
  O_CLOEXEC: 0o2000000,
  F_GETFD: 1,
  F_SETFD: 2,
  F_GETFL: 3,
  F_SETFL: 4,
  FD_CLOEXEC: 1,
  TIOCSWINSZ: 0x5414n,
  FIONREAD: 0x541bn,
  TIOCGPTPEER: 0x5441n,
  O_NOCTTY: 0o400,
  F_SETPIPE_SZ: 1031,
  TIOCSCTTY: 0x540e,
  EINTR: 4,
  EIO: 5,
  EAGAIN: 11,
  ENOENT: 2,
  EACCES: 13,
  ENOEXEC: 8,
  ECHILD: 10,
  ESRCH: 3,
  EPERM: 1,
  POLLIN: 1,
  POLLOUT: 4,
  POLLERR: 8,
  POLLHUP: 16,
  POLLNVAL: 32,
  WNOHANG: 1,
  X_OK: 1,
  POSIX_SPAWN_SETSIGDEF: 0x04,
  POSIX_SPAWN_SETSIGMASK: 0x08,
  POSIX_SPAWN_SETSID: 0x80,
  POSIX_SPAWN_CLOEXEC_DEFAULT: 0,
  SIZEOF_SPAWNATTR: 336,
  SIZEOF_FILE_ACTIONS: 80,
  SIZEOF_SIGSET: 128,
  SIZEOF_FD_SET: 128,
  FD_SETSIZE: 1024,
  POLL_HANDLES_DEVICES: true,
  SPAWN_OPEN_ACQUIRES_CTTY: true,
  PROC_STAT: true,
  SIZEOF_TERMIOS: 60,
  TERMIOS_LFLAG_OFFSET: 12,
  ECHO: 0o10,
  ICANON: 0o2,
};

const DARWIN: OsConstants = {
  ...LINUX,
  O_NONBLOCK: 0x4,
  O_CLOEXEC: 0x1000000,
  TIOCSWINSZ: 0x80087467n,
  FIONREAD: 0x4004667fn,
  TIOCGPTPEER: 0n,
  O_NOCTTY: 0x20000,
  F_SETPIPE_SZ: 0,
  TIOCSCTTY: 0x20007461,
  EAGAIN: 35,
  POSIX_SPAWN_SETSID: 0x400,
  POSIX_SPAWN_CLOEXEC_DEFAULT: 0x4000,
  // Opaque pointers on macOS.
  SIZEOF_SPAWNATTR: 8,
  SIZEOF_FILE_ACTIONS: 8,
  SIZEOF_SIGSET: 4,
  POLL_HANDLES_DEVICES: false,
  SPAWN_OPEN_ACQUIRES_CTTY: false,
  PROC_STAT: false,
  SIZEOF_TERMIOS: 72,
  TERMIOS_LFLAG_OFFSET: 24,
  ECHO: 0x8,
  ICANON: 0x100,
};

/** The constants of the OS this process runs on. */
export const C: Readonly<OsConstants> = IS_DARWIN ? DARWIN : LINUX;

/**
 * Linux system call numbers, as `/proc/<pid>/syscall` shows what a thread is
 * blocked in. x86_64 has its own table; aarch64 uses the asm-generic one,
 * which has no `poll`, `select` or `epoll_wait`, only their `p` variants.
 */
export interface SyscallNumbers {
  /** Calls that read one fd, given as their first argument. */
  reads: readonly number[];
  /** `poll(fds, nfds, …)` and `ppoll`: an array of struct pollfd. */
  polls: readonly number[];
  /** `select(nfds, readfds, …)` and `pselect6`: fd_set bitmaps. */
  selects: readonly number[];
  /** `epoll_wait(epfd, …)` and its variants: the set is in /proc/<pid>/fdinfo/<epfd>. */
  epolls: readonly number[];
  /** `wait4` and `waitid`: a parent waiting for its child (a shell running a job). */
  waits: readonly number[];
  /**
   * Where each poll, select and epoll call takes its timeout: the argument's
   * index, and its form: milliseconds (negative: none), or a pointer (NULL:
   * none) to a struct timeval or timespec (two 64-bit fields on these CPUs).
   */
  timeouts: Readonly<Record<number, { arg: number; unit: "ms" | "timeval" | "timespec" }>>;
}

const X86_64_SYSCALLS: SyscallNumbers = {
  reads: [0, 17, 19, 295, 327], // read, pread64, readv, preadv, preadv2
  polls: [7, 271], // poll, ppoll
  selects: [23, 270], // select, pselect6
  epolls: [232, 281, 441], // epoll_wait, epoll_pwait, epoll_pwait2
  waits: [61, 247], // wait4, waitid
  timeouts: {
    7: { arg: 2, unit: "ms" }, // poll
    271: { arg: 2, unit: "timespec" }, // ppoll
    23: { arg: 4, unit: "timeval" }, // select
    270: { arg: 4, unit: "timespec" }, // pselect6
    232: { arg: 3, unit: "ms" }, // epoll_wait
    281: { arg: 3, unit: "ms" }, // epoll_pwait
    441: { arg: 3, unit: "timespec" }, // epoll_pwait2
  },
};

const GENERIC_SYSCALLS: SyscallNumbers = {
  reads: [63, 65, 67, 69, 286], // read, readv, pread64, preadv, preadv2
  polls: [73], // ppoll
  selects: [72], // pselect6
  epolls: [22, 441], // epoll_pwait, epoll_pwait2
  waits: [260, 95], // wait4, waitid
  timeouts: {
    73: { arg: 2, unit: "timespec" }, // ppoll
    72: { arg: 4, unit: "timespec" }, // pselect6
    22: { arg: 3, unit: "ms" }, // epoll_pwait
    441: { arg: 3, unit: "timespec" }, // epoll_pwait2
  },
};

/** The system call numbers of this CPU (Linux). */
export const SYSCALLS: SyscallNumbers = Deno.build.arch === "x86_64"
  ? X86_64_SYSCALLS
  : GENERIC_SYSCALLS;

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

/** Adds `flags` to the file status flags (F_SETFL) of `fd`; returns false on failure. */
export function addStatusFlags(fd: number, flags: number): boolean {
  const current = fcntl(fd, C.F_GETFL);
  return current >= 0 && fcntl(fd, C.F_SETFL, current | flags) === 0;
}

/** Sets FD_CLOEXEC on `fd` so children never inherit it; returns false on failure. */
export function setCloexec(fd: number): boolean {
  return fcntl(fd, C.F_SETFD, C.FD_CLOEXEC) === 0;
}

const encoder = new TextEncoder();

/** A NUL-terminated copy of `text` for passing as `const char *`. */
export function cString(text: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(encoder.encode(text).length + 1);
  encoder.encodeInto(text, bytes);
  return bytes;
}

/**
 * A NULL-terminated `char *[]` (argv, envp). The strings are returned too:
 * they must stay referenced for as long as the array is in use.
 */
export function cStringArray(
  items: string[],
): { array: BigUint64Array<ArrayBuffer>; strings: Uint8Array[] } {
  const strings = items.map(cString);
  const array = new BigUint64Array(items.length + 1);
  strings.forEach((s, i) => array[i] = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(s))));
  return { array, strings };
}

/**
 * The echo and canonical bits of the terminal on `fd` (a master reports its
 * slave's) and all its local modes (`c_lflag`), or null when `fd` is no
 * terminal any more.
 */
export function lineModes(
  fd: number,
): { echo: boolean; canonical: boolean; flags: number } | null {
  const termios = new Uint8Array(C.SIZEOF_TERMIOS);
  if (libc().tcgetattr(fd, termios) !== 0) return null;
  const view = new DataView(termios.buffer);
  // Both flags sit in the low 32 bits of tcflag_t on these little-endian CPUs.
  const flags = view.getUint32(C.TERMIOS_LFLAG_OFFSET, true);
  return { echo: (flags & C.ECHO) !== 0, canonical: (flags & C.ICANON) !== 0, flags };
}

/** Bytes a read of `fd` would return now (pipes, terminals); 0 when it cannot tell. */
export function unreadBytes(fd: number): number {
  const count = new Int32Array(1);
  return ioctl(fd, C.FIONREAD, new Uint8Array(count.buffer)) === 0 ? count[0] : 0;
}

/**
 * Whether the slave of `master` holds input its program has not read, in
 * the kernel's own queues: a `poll` on the slave first hands the line
 * discipline what is still on its way from the master (n_tty_poll flushes
 * the port's buffer work), so nothing written before it is missed. Null
 * where the slave cannot be reached (not Linux; a terminal in exclusive mode).
 * A fresh fd on the slave (TIOCGPTPEER), closed at once: one the server kept
 * would hold the terminal open and hide the program's end (EIO).
 */
export function slaveHasInput(master: number): boolean | null {
  if (C.TIOCGPTPEER === 0n) return null;
  const lib = libc();
  const flags = C.O_RDWR | C.O_NOCTTY | C.O_NONBLOCK | C.O_CLOEXEC;
  const call = lib.ioctlInt as unknown as (...args: (number | bigint)[]) => number;
  const slave = call(master, C.TIOCGPTPEER, ...PAD_VALUES, BigInt(flags));
  if (slave < 0) return null;
  try {
    const pollFd = new Uint8Array(8);
    const view = new DataView(pollFd.buffer);
    view.setInt32(0, slave, true);
    view.setInt16(4, C.POLLIN, true);
    if (lib.pollNow(pollFd, 1n, 0) < 0) return null;
    return (view.getInt16(6, true) & C.POLLIN) !== 0;
  } finally {
    lib.close(slave);
  }
}

/** `struct winsize` (rows, cols, xpixel, ypixel: four u16) for TIOCSWINSZ / openpty. */
export function winsize(cols: number, rows: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(new Uint16Array([rows, cols, 0, 0]).buffer);
}
