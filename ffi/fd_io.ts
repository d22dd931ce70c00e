/**
 * Reads and writes on a nonblocking fd (a PTY master, a pipe end), the one
 * place that handles what such a call can say: EINTR is tried again, EAGAIN
 * means "nothing now" (the fd is drained, or full) and is the caller's to
 * wait out, through the readiness loop or a timer; anything else ends the
 * fd's use. {@link retried} asks any other C call again on EINTR.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fcntl, libc } from "./libc.ts";
 * import { C } from "./os_constants.ts";
 * import { readSome, writeSome } from "./fd_io.ts";
 *
 * const fds = new Int32Array(2);
 * assert.equal(libc().pipe(fds), 0);
 * const [reader, writer] = fds;
 * for (const fd of fds) fcntl(fd, C.F_SETFL, fcntl(fd, C.F_GETFL, 0) | C.O_NONBLOCK);
 * const buffer = new Uint8Array(16);
 * assert.equal(readSome(reader, buffer), "drained");
 * assert.deepEqual(writeSome(writer, new TextEncoder().encode("hi")), { written: 2, error: 0 });
 * assert.equal(readSome(reader, buffer), 2);
 * libc().close(writer);
 * assert.equal(readSome(reader, buffer), "end");
 * libc().close(reader);
 * ```
 * @module
 */
import { errno, libc } from "./libc.ts";
import { C } from "./os_constants.ts";

/**
 * Reads what `fd` has into `buffer`: the number of bytes read, `"drained"`
 * when it has nothing now (EAGAIN), or `"end"` at its end: end of file, or
 * an error, which ends the output just the same (a PTY master's EIO once
 * every slave fd is closed, on Linux).
 */
export function readSome(fd: number, buffer: Uint8Array): number | "drained" | "end" {
  for (;;) {
    const n = Number(libc().read(fd, buffer, BigInt(buffer.length)));
    if (n > 0) return n;
    if (n === 0) return "end";
    const code = errno();
    if (code === C.EINTR) continue;
    return code === C.EAGAIN ? "drained" : "end";
  }
}

/**
 * `call`'s result (a C call's: negative on failure, errno set), called again
 * while it fails with EINTR: a signal (SIGCHLD, a profiler's) broke it off.
 */
export function retried(call: () => number): number {
  for (;;) {
    const result = call();
    if (result >= 0 || errno() !== C.EINTR) return result;
  }
}

/** What a write took: `written` bytes; `error`, the errno that stopped it (0: none). */
export interface WriteResult {
  written: number;
  error: number;
}

/**
 * Writes as much of `bytes` as `fd` takes now: all of them, or fewer once it
 * is full (EAGAIN, with `error` 0), or until an error (a closed reader's
 * EPIPE, a hung-up terminal's EIO).
 */
export function writeSome(fd: number, bytes: Uint8Array): WriteResult {
  let written = 0;
  while (written < bytes.length) {
    const rest = bytes.subarray(written);
    const n = Number(libc().write(fd, rest, BigInt(rest.length)));
    if (n > 0) {
      written += n;
      continue;
    }
    // 0 for a non-empty write: the fd takes nothing now, as with EAGAIN.
    if (n === 0) break;
    const code = errno();
    if (code === C.EINTR) continue;
    if (code === C.EAGAIN) break;
    return { written, error: code };
  }
  return { written, error: 0 };
}
