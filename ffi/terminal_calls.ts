/**
 * What a terminal's or a pipe's fd tells through the C library: the line
 * modes of a terminal (echo, canonical input), the bytes a read would return
 * now, whether a PTY's slave holds input its program has not read; and the
 * `struct winsize` a terminal's size is set with.
 *
 * @module
 */
import { retried } from "./fd_io.ts";
import { ioctl, ioctlInt, libc } from "./libc.ts";
import { C } from "./os_constants.ts";

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
  // A signal (SIGCHLD; a profiler's) breaks either call off: it is asked again.
  const slave = retried(() => ioctlInt(master, C.TIOCGPTPEER, flags));
  if (slave < 0) return null;
  try {
    const pollFd = new Uint8Array(8);
    const view = new DataView(pollFd.buffer);
    view.setInt32(0, slave, true);
    view.setInt16(4, C.POLLIN, true);
    if (retried(() => lib.pollNow(pollFd, 1n, 0)) < 0) return null;
    return (view.getInt16(6, true) & C.POLLIN) !== 0;
  } finally {
    lib.close(slave);
  }
}

/** `struct winsize` (rows, cols, xpixel, ypixel: four u16) for TIOCSWINSZ / openpty. */
export function winsize(cols: number, rows: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(new Uint16Array([rows, cols, 0, 0]).buffer);
}
