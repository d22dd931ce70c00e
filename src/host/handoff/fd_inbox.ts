/**
 * The host's fd socket (`<socket>.fds`, 0600 beside its socket, POSIX): where
 * doors send their stdin and stdout fds (stdio_handoff.ts). Deno's sockets
 * cannot carry fds, so this one is made through FFI and watched by the
 * readiness loop. Each fd pair comes with the token the host gave that door
 * in its welcome ({@link FdInbox.offer}); pairs with no such token,
 * connections that send none in time, and those of another user's
 * processes (before anything is read), are closed.
 *
 * @module
 */
import { libc } from "../../../ffi/libc.ts";
import { C } from "../../../ffi/os_constants.ts";
import { readinessLoop } from "../../../ffi/readiness_loop.ts";
import { receiveFds } from "../../../ffi/unix_socket.ts";
import { withTimeout } from "../../async.ts";
import { HELLO_DEADLINE_MS } from "../../limits.ts";
import { FD_PASSING } from "../../platform.ts";
import { listenAt, type Listener } from "../listener.ts";

/** A token's length: a random UUID's 32 hex digits. */
const TOKEN_LENGTH = 32;

/** A client's stdin and stdout, as fds of the host. */
export type StdioFds = [input: number, output: number];

interface Slot {
  fds?: number[];
  arrived?: () => void;
}

/** The fd socket and the tokens offered on it. See the module doc. */
export class FdInbox {
  readonly path: string;
  readonly #listener: Listener;
  readonly #slots = new Map<string, Slot>();

  /** Listens at `<socket>.fds`; undefined (no handoff then, doors relay) where it cannot. */
  static open(socket: string): FdInbox | undefined {
    if (!FD_PASSING) return undefined;
    try {
      return new FdInbox(listenAt(`${socket}.fds`));
    } catch {
      return undefined;
    }
  }

  private constructor(listener: Listener) {
    this.path = listener.path;
    this.#listener = listener;
    (async () => {
      for (;;) this.#receive(await listener.accept());
    })().catch(() => {/* Closed: the host is stopping. */});
  }

  /** A new token for one door's fds. */
  offer(): string {
    const token = crypto.randomUUID().replaceAll("-", "");
    this.#slots.set(token, {});
    return token;
  }

  /** The fds sent with `token`, once they arrive; undefined if they do not in time. */
  async take(token: string): Promise<StdioFds | undefined> {
    const slot = this.#slots.get(token);
    if (slot === undefined) return undefined;
    if (slot.fds === undefined) {
      await withTimeout(
        new Promise<void>((resolve) => slot.arrived = resolve),
        HELLO_DEADLINE_MS,
        0,
      );
    }
    this.#slots.delete(token);
    const fds = slot.fds ?? [];
    if (fds.length === 2) return [fds[0], fds[1]];
    closeAll(fds);
    return undefined;
  }

  /** Forgets `token` (its door relays instead), closing what came with it. */
  withdraw(token: string): void {
    closeAll(this.#slots.get(token)?.fds ?? []);
    this.#slots.delete(token);
  }

  /** Stops listening: for shutdown (the host's lock's release removes the file). */
  close(): void {
    this.#listener.close();
  }

  /** Reads a token (and the fds that come with it) off `fd`, then closes it. */
  #receive(fd: number): void {
    const fds: number[] = [];
    const token = new Uint8Array(TOKEN_LENGTH);
    let length = 0;
    const done = (token?: string) => {
      clearTimeout(timer);
      readinessLoop.unregister(fd);
      const slot = token === undefined ? undefined : this.#slots.get(token);
      if (slot === undefined || slot.fds !== undefined) return closeAll(fds);
      slot.fds = fds;
      slot.arrived?.();
    };
    const timer = setTimeout(done, HELLO_DEADLINE_MS);
    readinessLoop.register(fd, C.POLLIN, () => {
      for (;;) {
        const got = receiveFds(fd, token.subarray(length));
        if (got === "drained") return;
        if (got === "end") return done();
        fds.push(...got.fds);
        length += got.bytes.length;
        if (length === TOKEN_LENGTH) return done(new TextDecoder().decode(token));
      }
    });
  }
}

function closeAll(fds: number[]): void {
  for (const fd of fds) libc().close(fd);
}
