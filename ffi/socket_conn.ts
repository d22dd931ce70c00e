/**
 * A `Deno.UnixConn` over a connected Unix socket made through the C library
 * (unix_socket.ts), driven by the shared readiness loop. Deno's own sockets
 * hide their fd, so neither end could ask the kernel who is at the other
 * ({@link peerUid}); over this one it can, before a byte is sent, and the
 * rest of the code reads and writes it as any `Deno.Conn`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { acceptNow, connectNow, listenUnix, peerUid } from "./unix_socket.ts";
 * import { SocketConn } from "./socket_conn.ts";
 *
 * const path = `${Deno.makeTempDirSync()}/s`;
 * const listener = listenUnix(path);
 * const door = connectNow(path) as number;
 * const host = acceptNow(listener) as number;
 * assert.equal(peerUid(door), Deno.uid());
 * const a = new SocketConn(door, path);
 * const b = new SocketConn(host, path);
 * await a.write(new TextEncoder().encode("hi"));
 * await a.closeWrite();
 * const buffer = new Uint8Array(8);
 * assert.equal(await b.read(buffer), 2);
 * assert.equal(await b.read(buffer), null);
 * a.close();
 * b.close();
 * (await import("./libc.ts")).libc().close(listener);
 * ```
 * @module
 */
import { readSome, writeSome } from "./fd_io.ts";
import { errno, libc, strerror } from "./libc.ts";
import { addStatusFlags } from "./fd_flags.ts";
import { C } from "./os_constants.ts";
import { HANGUP, readinessLoop } from "./readiness_loop.ts";

/** Bytes a `readable` chunk holds at most. */
const CHUNK_BYTES = 64 * 1024;

/** A connected Unix socket as a `Deno.UnixConn`; it owns `fd` and closes it. */
export class SocketConn implements Deno.UnixConn {
  readonly localAddr: Deno.UnixAddr;
  readonly remoteAddr: Deno.UnixAddr;
  readonly #fd: number;
  #closed = false;
  /** What wakes the read, and the write, waiting for the socket (null: none waits). */
  readonly #wake: Record<"read" | "write", (() => void) | null> = { read: null, write: null };
  #readable: ReadableStream<Uint8Array<ArrayBuffer>> | undefined;
  #writable: WritableStream<Uint8Array<ArrayBufferLike>> | undefined;

  /** Takes `fd`, a connected socket (made nonblocking here), reached at `path`. */
  constructor(fd: number, path: string) {
    this.#fd = fd;
    this.localAddr = this.remoteAddr = { transport: "unix", path };
    addStatusFlags(fd, C.O_NONBLOCK);
    readinessLoop.register(fd, 0, (revents) => {
      if (revents & (C.POLLIN | HANGUP)) this.#wake.read?.();
      if (revents & (C.POLLOUT | HANGUP)) this.#wake.write?.();
    });
  }

  /** Reads what has come, waiting for some; null at the end (or once the other end reset). */
  async read(p: Uint8Array): Promise<number | null> {
    for (;;) {
      this.#open();
      const n = readSome(this.#fd, p);
      if (n === "end") return null;
      if (n !== "drained") return n;
      await this.#wait("read");
    }
  }

  /** Writes as much of `p` as the socket takes, waiting for room for at least one byte. */
  async write(p: Uint8Array): Promise<number> {
    if (p.length === 0) return 0;
    for (;;) {
      this.#open();
      const { written, error } = writeSome(this.#fd, p);
      if (error !== 0) throw new Deno.errors.BrokenPipe(strerror(error));
      if (written > 0) return written;
      await this.#wait("write");
    }
  }

  /** Shuts down this end's writing: the other end reads its end of input. */
  closeWrite(): Promise<void> {
    this.#open();
    if (libc().shutdown(this.#fd, C.SHUT_WR) !== 0) {
      return Promise.reject(new Error(`shutdown: ${strerror(errno())}`));
    }
    return Promise.resolve();
  }

  /** Closes the socket; a read or write waiting fails. */
  close(): void {
    this.#open();
    this.#closed = true;
    readinessLoop.unregister(this.#fd);
    this.#wake.read?.();
    this.#wake.write?.();
  }

  /** The readiness loop keeps its process alive while it watches any fd: nothing to change. */
  ref(): void {}

  /** See {@link SocketConn.ref}. */
  unref(): void {}

  get readable(): ReadableStream<Uint8Array<ArrayBuffer>> {
    return this.#readable ??= new ReadableStream({
      pull: async (controller) => {
        const buffer = new Uint8Array(CHUNK_BYTES);
        const n = await this.read(buffer);
        if (n !== null) return controller.enqueue(buffer.subarray(0, n));
        controller.close();
        this.#closeQuietly();
      },
      cancel: () => this.#closeQuietly(),
    });
  }

  get writable(): WritableStream<Uint8Array<ArrayBufferLike>> {
    return this.#writable ??= new WritableStream({
      write: async (chunk) => {
        for (let done = 0; done < chunk.length;) done += await this.write(chunk.subarray(done));
      },
      close: () => this.#closeQuietly(),
      abort: () => this.#closeQuietly(),
    });
  }

  [Symbol.dispose](): void {
    this.#closeQuietly();
  }

  #closeQuietly(): void {
    if (!this.#closed) this.close();
  }

  #open(): void {
    if (this.#closed) throw new Deno.errors.BadResource("the connection is closed");
  }

  /** Resolves once the socket is readable (or writable), has hung up, or is closed here. */
  #wait(kind: "read" | "write"): Promise<void> {
    return new Promise((resolve) => {
      this.#wake[kind] = () => {
        this.#wake[kind] = null;
        this.#want();
        resolve();
      };
      this.#want();
    });
  }

  /** Asks the readiness loop for what a waiting read or write needs, and nothing else. */
  #want(): void {
    if (this.#closed) return;
    const events = (this.#wake.read ? C.POLLIN : 0) | (this.#wake.write ? C.POLLOUT : 0);
    readinessLoop.setEvents(this.#fd, events);
  }
}
