/**
 * Unix stream sockets made through the C library, for what Deno's own cannot
 * do: pass file descriptors (`sendmsg`/`recvmsg` with SCM_RIGHTS). Deno does
 * not expose a `Deno.Conn`'s fd, so a socket that carries fds is made here.
 * The struct layouts (sockaddr_un, msghdr, cmsghdr and CMSG_ALIGN: 8 bytes on
 * Linux, 4 on macOS) come from os_constants.ts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { libc } from "./libc.ts";
 * import { acceptNow, connectUnix, listenUnix, receiveFds, sendFds } from "./unix_socket.ts";
 *
 * const path = `${Deno.makeTempDirSync()}/s`;
 * const listener = listenUnix(path);
 * const door = connectUnix(path);
 * const host = acceptNow(listener);
 * assert.ok(typeof host === "number");
 * const pipe = new Int32Array(2);
 * libc().pipe(new Uint8Array(pipe.buffer));
 * sendFds(door, new TextEncoder().encode("token"), [pipe[0], pipe[1]]);
 * const got = receiveFds(host, new Uint8Array(16));
 * assert.ok(typeof got === "object");
 * assert.equal(new TextDecoder().decode(got.bytes), "token");
 * assert.equal(got.fds.length, 2);
 * for (const fd of [...pipe, ...got.fds, door, host, listener]) libc().close(fd);
 * ```
 * @module
 */
import { errno, libc, strerror } from "./libc.ts";
import { addStatusFlags, setCloexec } from "./fd_flags.ts";
import { retried } from "./fd_io.ts";
import { C } from "./os_constants.ts";

/** At most this many fds are taken from one message; more are closed by the kernel. */
const MAX_FDS = 4;

const align = (n: number) => (n + C.CMSG_ALIGN - 1) & ~(C.CMSG_ALIGN - 1);
/** CMSG_DATA's offset: the header (cmsg_len, cmsg_level, cmsg_type), aligned. */
const CMSG_DATA = align(C.CMSG_LEN_BYTES + 8);
const cmsgSpace = (fds: number) => CMSG_DATA + align(4 * fds);

/** A `struct sockaddr_un` for `path`, and its length; throws when the path is too long. */
function sockaddr(path: string): [Uint8Array, number] {
  const name = new TextEncoder().encode(path);
  if (name.length >= C.SUN_PATH_BYTES) throw new Error(`socket path too long: ${path}`);
  const address = new Uint8Array(2 + C.SUN_PATH_BYTES);
  if (C.SUN_LEN_BYTE) {
    address[0] = 2 + name.length + 1;
    address[1] = C.AF_UNIX;
  } else new DataView(address.buffer).setUint16(0, C.AF_UNIX, true);
  address.set(name, 2);
  return [address, 2 + name.length + 1];
}

/** A new Unix stream socket, close-on-exec; throws with the C library's reason. */
function newSocket(): number {
  const fd = libc().socket(C.AF_UNIX, C.SOCK_STREAM, 0);
  if (fd < 0) throw new Error(`socket: ${strerror(errno())}`);
  setCloexec(fd);
  return fd;
}

/** Fails with errno's description after closing `fd`. */
function fail(fd: number, call: string): never {
  const reason = strerror(errno());
  libc().close(fd);
  throw new Error(`${call}: ${reason}`);
}

/** A nonblocking socket listening at `path` (made by this call; the caller sets the umask). */
export function listenUnix(path: string): number {
  const fd = newSocket();
  const [address, length] = sockaddr(path);
  if (libc().bind(fd, address, length) !== 0) fail(fd, "bind");
  if (libc().listen(fd, 128) !== 0) fail(fd, "listen");
  if (!addStatusFlags(fd, C.O_NONBLOCK)) fail(fd, "fcntl");
  return fd;
}

/** A connection to the socket at `path` (blocking: a Unix socket connects at once). */
export function connectUnix(path: string): number {
  const fd = newSocket();
  const [address, length] = sockaddr(path);
  if (retried(() => libc().connect(fd, address, length)) !== 0) fail(fd, "connect");
  return fd;
}

/**
 * A nonblocking connection to the socket at `path`: "absent" when nothing
 * listens there (no such file, or no one accepting), "busy" when its backlog
 * is full (try again shortly); throws on anything else.
 */
export function connectNow(path: string): number | "absent" | "busy" {
  const fd = newSocket();
  if (!addStatusFlags(fd, C.O_NONBLOCK)) fail(fd, "fcntl");
  const [address, length] = sockaddr(path);
  if (retried(() => libc().connect(fd, address, length)) === 0) return fd;
  const code = errno();
  if (code !== C.ENOENT && code !== C.ECONNREFUSED && code !== C.EAGAIN) fail(fd, "connect");
  libc().close(fd);
  return code === C.EAGAIN ? "busy" : "absent";
}

/**
 * The uid of the process at the other end of connected Unix socket `fd`, as
 * the kernel recorded it when that end connected or listened (SO_PEERCRED on
 * Linux, `getpeereid` on macOS): who it is, not what it says. Throws when the
 * OS cannot tell.
 */
export function peerUid(fd: number): number {
  if (C.SO_PEERCRED !== 0) return peerCredentials(fd).getUint32(4, true);
  const ids = new Uint32Array(2);
  const asked = libc().getpeereid!(
    fd,
    new Uint8Array(ids.buffer, 0, 4),
    new Uint8Array(ids.buffer, 4, 4),
  );
  if (asked !== 0) throw new Error(`getpeereid: ${strerror(errno())}`);
  return ids[0];
}

/**
 * The pid of the process that connected the other end of Unix socket `fd`
 * (SO_PEERCRED), in this process's PID namespace; null where the OS does not
 * say (macOS). Throws when it cannot be read.
 */
export function peerPid(fd: number): number | null {
  return C.SO_PEERCRED === 0 ? null : peerCredentials(fd).getUint32(0, true);
}

/** SO_PEERCRED's struct ucred of `fd`: pid, uid, gid. */
function peerCredentials(fd: number): DataView {
  const credentials = new Uint8Array(12);
  const length = new Uint32Array([credentials.length]);
  const asked = libc().getsockopt(
    fd,
    C.SOL_SOCKET,
    C.SO_PEERCRED,
    credentials,
    new Uint8Array(length.buffer),
  );
  if (asked !== 0) throw new Error(`getsockopt(SO_PEERCRED): ${strerror(errno())}`);
  return new DataView(credentials.buffer);
}

/** A connection taken from nonblocking `listener` (nonblocking, close-on-exec), or "drained". */
export function acceptNow(listener: number): number | "drained" {
  const fd = retried(() => libc().accept(listener, null, null));
  if (fd >= 0) {
    setCloexec(fd);
    addStatusFlags(fd, C.O_NONBLOCK);
    return fd;
  }
  const code = errno();
  if (code === C.EAGAIN) return "drained";
  throw new Error(`accept: ${strerror(code)}`);
}

/** A `struct msghdr` over one iovec of `data` and a control buffer of `control`. */
function message(data: Uint8Array, control: Uint8Array): { header: Uint8Array; iov: Uint8Array } {
  const iov = new Uint8Array(16);
  const iovView = new DataView(iov.buffer);
  iovView.setBigUint64(0, BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(data))), true);
  iovView.setBigUint64(8, BigInt(data.length), true);
  const header = new Uint8Array(C.SIZEOF_MSGHDR);
  const view = new DataView(header.buffer);
  view.setBigUint64(16, BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(iov))), true);
  view.setUint32(24, 1, true);
  const controlAt = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(control)));
  view.setBigUint64(C.MSGHDR_CONTROL_OFFSET, controlAt, true);
  setSize(view, C.MSGHDR_CONTROLLEN_OFFSET, C.MSGHDR_CONTROLLEN_BYTES, control.length);
  return { header, iov };
}

function setSize(view: DataView, offset: number, bytes: number, value: number): void {
  if (bytes === 8) view.setBigUint64(offset, BigInt(value), true);
  else view.setUint32(offset, value, true);
}

function getSize(view: DataView, offset: number, bytes: number): number {
  return bytes === 8 ? Number(view.getBigUint64(offset, true)) : view.getUint32(offset, true);
}

/**
 * Sends `data` (small: one write) with `fds` attached, on blocking socket
 * `fd`; throws when the kernel refuses.
 */
export function sendFds(fd: number, data: Uint8Array, fds: number[]): void {
  const control = new Uint8Array(cmsgSpace(fds.length));
  const view = new DataView(control.buffer);
  setSize(view, 0, C.CMSG_LEN_BYTES, CMSG_DATA + 4 * fds.length);
  view.setInt32(C.CMSG_LEN_BYTES, C.SOL_SOCKET, true);
  view.setInt32(C.CMSG_LEN_BYTES + 4, C.SCM_RIGHTS, true);
  fds.forEach((each, i) => view.setInt32(CMSG_DATA + 4 * i, each, true));
  const { header, iov } = message(data, control);
  const n = retried(() => Number(libc().sendmsg(fd, header, 0)));
  if (n < 0) throw new Error(`sendmsg: ${strerror(errno())}`);
  if (n !== data.length) throw new Error(`sendmsg sent ${n} of ${data.length} bytes`);
  void iov; // Referenced by `header` until the call returns.
}

/** What one {@link receiveFds} read: bytes, and the fds that came with them (close-on-exec). */
export interface Received {
  bytes: Uint8Array;
  fds: number[];
}

/**
 * Reads what nonblocking socket `fd` has, up to `buffer`'s size, with any
 * fds attached: "drained" when it has nothing now, "end" at its end or on
 * an error.
 */
export function receiveFds(fd: number, buffer: Uint8Array): Received | "drained" | "end" {
  const control = new Uint8Array(cmsgSpace(MAX_FDS));
  const { header, iov } = message(buffer, control);
  const n = retried(() => Number(libc().recvmsg(fd, header, C.MSG_CMSG_CLOEXEC)));
  void iov;
  if (n < 0) return errno() === C.EAGAIN ? "drained" : "end";
  const fds = attachedFds(header, control);
  if (n === 0 && fds.length === 0) return "end";
  return { bytes: buffer.slice(0, n), fds };
}

/** The SCM_RIGHTS fds in a received message's control buffer, made close-on-exec. */
function attachedFds(header: Uint8Array, control: Uint8Array): number[] {
  const headerView = new DataView(header.buffer);
  const controlLength = getSize(headerView, C.MSGHDR_CONTROLLEN_OFFSET, C.MSGHDR_CONTROLLEN_BYTES);
  const view = new DataView(control.buffer);
  const fds: number[] = [];
  for (let at = 0; at + CMSG_DATA <= controlLength;) {
    const length = getSize(view, at, C.CMSG_LEN_BYTES);
    if (length < CMSG_DATA) break;
    const level = view.getInt32(at + C.CMSG_LEN_BYTES, true);
    const type = view.getInt32(at + C.CMSG_LEN_BYTES + 4, true);
    if (level === C.SOL_SOCKET && type === C.SCM_RIGHTS) {
      for (let i = at + CMSG_DATA; i + 4 <= at + length; i += 4) {
        const each = view.getInt32(i, true);
        if (C.MSG_CMSG_CLOEXEC === 0) setCloexec(each);
        fds.push(each);
      }
    }
    at += align(length);
  }
  return fds;
}
