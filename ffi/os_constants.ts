/**
 * The constants, struct sizes and behaviours of this OS for the C library
 * (ffi/libc.ts): Linux glibc (x86_64 and aarch64: the asm-generic values
 * hold for both, but O_DIRECTORY and O_NOFOLLOW) and macOS. The POSIX modules read how Linux and macOS
 * differ from {@link C} rather than test the OS themselves.
 *
 * @module
 */
import { IS_DARWIN } from "./libc.ts";

/** Linux glibc's values, each explained here once (macOS and aarch64 below differ in some). */
const LINUX = {
  O_RDONLY: 0,
  O_RDWR: 2,
  O_NONBLOCK: 0o4000,
  O_CLOEXEC: 0o2000000,
  F_GETFD: 1,
  F_SETFD: 2,
  F_GETFL: 3,
  F_SETFL: 4,
  FD_CLOEXEC: 1,
  TIOCSWINSZ: 0x5414n,
  /** How many bytes a read would return now (FIONREAD). */
  FIONREAD: 0x541bn,
  /** A new fd on a master's slave, without its path (Linux ≥ 4.13; 0n: none). */
  TIOCGPTPEER: 0x5441n,
  O_NOCTTY: 0o400,
  /** fcntl command that sets a pipe's capacity (Linux); 0 where pipes cannot be resized. */
  F_SETPIPE_SZ: 1031,
  /** Makes the terminal on the given fd the caller's controlling terminal. */
  TIOCSCTTY: 0x540e,
  EINTR: 4,
  EAGAIN: 11,
  ENOENT: 2,
  EACCES: 13,
  ENOEXEC: 8,
  ESRCH: 3,
  EPERM: 1,
  EEXIST: 17,
  ECONNREFUSED: 111,
  /** open(2) flags that refuse anything but a directory, and a symbolic link (ffi/dir_fd.ts). */
  O_DIRECTORY: 0o200000,
  O_NOFOLLOW: 0o400000,
  /**
   * How a descriptor's owner and mode are read (ffi/dir_fd.ts): Linux's
   * `statx` (one layout on every CPU, glibc ≥ 2.28), macOS's `fstat`
   * (64-bit inode layout); where `st_uid` and `st_mode` sit in its buffer.
   */
  STAT_CALL: "statx" as "statx" | "fstat",
  // struct statx: stx_uid at 20, stx_mode (u16) at 28.
  STAT_UID_OFFSET: 20,
  STAT_MODE_OFFSET: 28,
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
  /** macOS only (0 on Linux): close every fd not named in the file actions. */
  POSIX_SPAWN_CLOEXEC_DEFAULT: 0,
  SIZEOF_SPAWNATTR: 336,
  SIZEOF_FILE_ACTIONS: 80,
  SIZEOF_SIGSET: 128,
  /** Both OSes: 128 bytes, bit `fd % 8` of byte `fd / 8` on little-endian CPUs. */
  SIZEOF_FD_SET: 128,
  FD_SETSIZE: 1024,
  /** Whether `poll` works on devices; macOS `poll` reports POLLNVAL for them (PTY masters too). */
  POLL_HANDLES_DEVICES: true,
  /**
   * Whether opening a terminal in posix_spawn's file actions makes it the
   * controlling terminal of the POSIX_SPAWN_SETSID session: glibc makes the
   * session first, macOS runs the file actions first.
   */
  SPAWN_OPEN_ACQUIRES_CTTY: true,
  /** Whether /proc/<pid>/stat exists, with each process's group and session (Linux). */
  PROC_STAT: true,
  /** `struct termios`: its size, and where `c_lflag` sits (tcflag_t: 4 bytes, macOS 8). */
  SIZEOF_TERMIOS: 60,
  TERMIOS_LFLAG_OFFSET: 12,
  /** c_lflag bits: input is echoed; input is read line by line (canonical mode). */
  ECHO: 0o10,
  ICANON: 0o2,
  /** Unix sockets (ffi/unix_socket.ts): the same values on both but SOL_SOCKET. */
  AF_UNIX: 1,
  SOCK_STREAM: 1,
  SOL_SOCKET: 1,
  SCM_RIGHTS: 1,
  /** getsockopt's peer credentials (Linux; 0 on macOS, which has `getpeereid`). */
  SO_PEERCRED: 17,
  /** shutdown(2): no more writes. */
  SHUT_WR: 1,
  /** recvmsg flag: the fds received are close-on-exec at once (Linux; 0: set them after). */
  MSG_CMSG_CLOEXEC: 0x40000000,
  /** `struct sockaddr_un`: BSDs start it with a length byte; sun_path's size. */
  SUN_LEN_BYTE: false,
  SUN_PATH_BYTES: 108,
  /** `struct msghdr`: its size, where msg_control sits, msg_controllen's offset and size. */
  SIZEOF_MSGHDR: 56,
  MSGHDR_CONTROL_OFFSET: 32,
  MSGHDR_CONTROLLEN_OFFSET: 40,
  MSGHDR_CONTROLLEN_BYTES: 8,
  /** `struct cmsghdr`: cmsg_len's size (size_t on Linux, socklen_t on macOS) and CMSG_ALIGN's unit. */
  CMSG_LEN_BYTES: 8,
  CMSG_ALIGN: 8,
};

/** Constants, struct sizes and behaviours that differ between Linux (glibc) and macOS. */
export type OsConstants = typeof LINUX;

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
  ECONNREFUSED: 61,
  O_DIRECTORY: 0x100000,
  O_NOFOLLOW: 0x100,
  STAT_CALL: "fstat",
  // struct stat (64-bit inodes): st_mode (u16) at 4, st_uid at 16.
  STAT_UID_OFFSET: 16,
  STAT_MODE_OFFSET: 4,
  SO_PEERCRED: 0,
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
  SOL_SOCKET: 0xffff,
  MSG_CMSG_CLOEXEC: 0,
  SUN_LEN_BYTE: true,
  SUN_PATH_BYTES: 104,
  SIZEOF_MSGHDR: 48,
  MSGHDR_CONTROLLEN_BYTES: 4,
  CMSG_LEN_BYTES: 4,
  CMSG_ALIGN: 4,
};

/** Linux on 64-bit ARM: the open(2) flags that differ from the asm-generic ones. */
const LINUX_ARM64: OsConstants = { ...LINUX, O_DIRECTORY: 0o40000, O_NOFOLLOW: 0o100000 };

/** The constants of the OS this process runs on. */
export const C: Readonly<OsConstants> = IS_DARWIN
  ? DARWIN
  : Deno.build.arch === "aarch64"
  ? LINUX_ARM64
  : LINUX;
