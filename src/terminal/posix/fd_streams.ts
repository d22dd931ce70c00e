/**
 * Web streams over our ends of OS pipes (O_NONBLOCK, close-on-exec), driven
 * by the shared {@link readinessLoop} like the PTY masters: no thread blocks
 * in a read, and each stream owns its fd and closes it when it ends.
 *
 * @module
 */
import { fcntl, strerror } from "../../../ffi/libc.ts";
import { C } from "../../../ffi/os_constants.ts";
import { readSome, writeSome } from "../../../ffi/fd_io.ts";
import { HANGUP, readinessLoop } from "../../../ffi/readiness_loop.ts";

/** Bytes a readable queues before it stops reading: a slow reader holds the program back. */
const READ_AHEAD = 1 << 20;

/**
 * Shared by every readable: reads are synchronous. As big as a grown pipe,
 * which one read then empties.
 */
let readBuf = new Uint8Array(1 << 20);

/**
 * A pipe found full (64 KiB, Linux's default) is grown to this: a flood then
 * costs a sixteenth of the wake-ups. Only a flooding pipe grows, since the
 * kernel caps what all pipes of a user may hold (pipe-user-pages-soft).
 */
const FLOOD_PIPE_BYTES = 1 << 20;
const DEFAULT_PIPE_BYTES = 64 * 1024;

/**
 * What `fd` yields, until end of file; the fd is closed then, or when the
 * stream is cancelled. `onEnd` runs once, either way.
 */
export function readableFd(fd: number, onEnd: () => void): ReadableStream<Uint8Array> {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let ended = false;
  let grown = C.F_SETPIPE_SZ === 0;
  const end = () => {
    if (ended) return;
    ended = true;
    readinessLoop.unregister(fd);
    onEnd();
  };
  const onReady = (revents: number) => {
    // After a hang-up what is left is bounded by the pipe's capacity: read it
    // all, so a paused fd cannot keep reporting POLLHUP.
    const hangup = (revents & HANGUP) !== 0;
    for (;;) {
      if (!hangup && (controller.desiredSize ?? 0) <= 0) {
        readinessLoop.setEvents(fd, 0);
        return;
      }
      const n = readSome(fd, readBuf);
      if (n === "drained") return;
      if (n === "end") {
        controller.close();
        end();
        return;
      }
      controller.enqueue(takeChunk(n));
      if (!grown && n >= DEFAULT_PIPE_BYTES) {
        grown = true;
        // Refused past the user's limit: the pipe just stays as it is.
        fcntl(fd, C.F_SETPIPE_SZ, FLOOD_PIPE_BYTES);
      }
    }
  };
  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      readinessLoop.register(fd, C.POLLIN, onReady);
    },
    pull() {
      if (!ended) readinessLoop.setEvents(fd, C.POLLIN);
    },
    cancel: end,
  }, new ByteLengthQueuingStrategy({ highWaterMark: READ_AHEAD }));
}

/**
 * The `n` bytes just read. A flood's chunk (half the buffer or more) is the
 * buffer itself, and the next read gets a new one: a copy of every MiB cost
 * the server's thread more than a fresh buffer. A smaller chunk is copied
 * out, so that it holds no more memory than its bytes.
 */
function takeChunk(n: number): Uint8Array {
  if (n < readBuf.length / 2) return readBuf.slice(0, n);
  const chunk = readBuf.subarray(0, n);
  readBuf = new Uint8Array(readBuf.length);
  return chunk;
}

/** A writable over `fd`, and a way to close the fd at once. */
export interface FdWriter {
  /** Writes resolve once the pipe took every byte; closing it closes the fd. */
  stream: WritableStream<Uint8Array>;
  /** Closes the fd now (the reader is gone for good); pending and later writes fail. */
  shut(): void;
}

/** A {@link FdWriter} over `fd`. */
export function writableFd(fd: number): FdWriter {
  let shut = false;
  /** Wakes the write waiting for room, if one is. */
  let wake: (() => void) | null = null;
  const close = () => {
    if (shut) return;
    shut = true;
    readinessLoop.unregister(fd);
    wake?.();
  };
  // Watched with no events while idle: poll still reports POLLERR once the
  // reader has closed its end, which is when the fd is of no more use.
  readinessLoop.register(fd, 0, (revents) => {
    if (wake !== null) wake();
    else if (revents & HANGUP) close();
  });
  const waitForRoom = () =>
    new Promise<void>((resolve) => {
      wake = () => {
        wake = null;
        if (!shut) readinessLoop.setEvents(fd, 0);
        resolve();
      };
      readinessLoop.setEvents(fd, C.POLLOUT);
    });
  const stream = new WritableStream<Uint8Array>({
    async write(chunk) {
      let offset = 0;
      while (offset < chunk.length) {
        if (shut) throw new Error("the pipe is closed");
        const { written, error } = writeSome(fd, chunk.subarray(offset));
        offset += written;
        if (error !== 0) {
          close();
          throw new Error(strerror(error));
        }
        if (offset < chunk.length) await waitForRoom();
      }
    },
    close,
    abort: close,
  });
  return { stream, shut: close };
}
