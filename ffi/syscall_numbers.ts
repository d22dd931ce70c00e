/**
 * Linux system call numbers, as `/proc/<pid>/syscall` shows what a thread is
 * blocked in: the input probe (input_state.ts) tells a program reading its
 * terminal from one busy or waiting for its child by them.
 *
 * @module
 */

/**
 * The calls the input probe looks for, by number. x86_64 has its own table;
 * aarch64 uses the asm-generic one, which has no `poll`, `select` or
 * `epoll_wait`, only their `p` variants.
 */
const X86_64_SYSCALLS = {
  /** Calls that read one fd, given as their first argument. */
  reads: [0, 17, 19, 295, 327], // read, pread64, readv, preadv, preadv2
  /** `poll(fds, nfds, …)` and `ppoll`: an array of struct pollfd. */
  polls: [7, 271], // poll, ppoll
  /** `select(nfds, readfds, …)` and `pselect6`: fd_set bitmaps. */
  selects: [23, 270], // select, pselect6
  /** `epoll_wait(epfd, …)` and its variants: the set is in /proc/<pid>/fdinfo/<epfd>. */
  epolls: [232, 281, 441], // epoll_wait, epoll_pwait, epoll_pwait2
  /** `wait4` and `waitid`: a parent waiting for its child (a shell running a job). */
  waits: [61, 247], // wait4, waitid
  /**
   * Where each poll, select and epoll call takes its timeout: the argument's
   * index, and its form: milliseconds (negative: none), or a pointer (NULL:
   * none) to a struct timeval or timespec (two 64-bit fields on these CPUs).
   */
  timeouts: {
    7: { arg: 2, unit: "ms" }, // poll
    271: { arg: 2, unit: "timespec" }, // ppoll
    23: { arg: 4, unit: "timeval" }, // select
    270: { arg: 4, unit: "timespec" }, // pselect6
    232: { arg: 3, unit: "ms" }, // epoll_wait
    281: { arg: 3, unit: "ms" }, // epoll_pwait
    441: { arg: 3, unit: "timespec" }, // epoll_pwait2
  } as Readonly<Record<number, { arg: number; unit: "ms" | "timeval" | "timespec" }>>,
  /** `socket(domain, …)`: what a sandbox without a network refuses (ffi/seccomp.ts). */
  socket: 41,
  /** `io_uring_setup`: io_uring can open sockets without calling `socket`. */
  ioUringSetup: 425,
  /** The CPU's AUDIT_ARCH_* value, as seccomp sees a system call's ABI. */
  auditArch: 0xc000003e, // AUDIT_ARCH_X86_64
  /** Numbers at or above this are another ABI on the same CPU (x32), or 0 for none. */
  foreignFrom: 0x40000000, // __X32_SYSCALL_BIT
};

/** The system call numbers of one CPU. */
export type SyscallNumbers = typeof X86_64_SYSCALLS;

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
  socket: 198,
  ioUringSetup: 425,
  auditArch: 0xc00000b7, // AUDIT_ARCH_AARCH64
  foreignFrom: 0,
};

/** The system call numbers of this CPU (Linux). */
export const SYSCALLS: SyscallNumbers = Deno.build.arch === "x86_64"
  ? X86_64_SYSCALLS
  : GENERIC_SYSCALLS;
