/**
 * One readiness loop shared by every PTY master: a single pending `poll`
 * (`select` on macOS, whose `poll` rejects devices) over all registered fds,
 * run on Deno's nonblocking-FFI pool, plus a wake fd (eventfd on Linux, a
 * pipe on macOS) that interrupts it when the set changes.
 *
 * Why one wait for all: that pool has 32 threads, so a blocking read per PTY
 * would starve file I/O at ~16 PTYs, and a pending read cannot be cancelled.
 * The owners do their reads and writes synchronously on the JS thread when
 * called back (their fds are O_NONBLOCK), where errno is readable; each owner
 * caps what it reads per call-back, so one busy fd cannot starve the others.
 *
 * The loop keeps an FFI call pending only while fds are registered: with none
 * left it stops, so a process with no PTYs exits normally and tests see no
 * pending op. An fd is closed by {@link ReadinessLoop.unregister} only once no
 * wait refers to it, so its number cannot be reused under a pending call.
 *
 * @module
 */
import { libc } from "./libc.ts";
import { addStatusFlags, setCloexec } from "./fd_flags.ts";
import { yieldTurn } from "./yield_turn.ts";
import { C } from "./os_constants.ts";
import { readSome } from "./fd_io.ts";

/** Called on the JS thread with the `POLL*` bits reported for the fd. */
export type ReadyCallback = (revents: number) => void;

/** How the loop waits: `poll` (Linux default) or `select` (macOS default). */
export type Mechanism = "poll" | "select";

interface Entry {
  fd: number;
  events: number;
  onReady: ReadyCallback;
}

/** Bits that say the other end is gone; poll reports them even when not asked for. */
export const HANGUP = C.POLLHUP | C.POLLERR | C.POLLNVAL;

const POLLFD_SIZE = 8;
/**
 * Longest the loop keeps the JS thread to itself during a flood (see
 * {@link ReadinessLoop}); a tool call waits behind it.
 */
const YIELD_MS = 1;

/** A set of fds watched by one pending wait at a time. See the module doc. */
export class ReadinessLoop {
  readonly #mechanism: Mechanism;
  readonly #entries = new Map<number, Entry>();
  /** Unregistered while a wait was pending: closed when it settles. */
  #deferred: { fd: number; done: () => void }[] = [];
  #running = false;
  #waiting = false;
  #wakePending = false;
  #wakeRead = -1;
  #wakeWrite = -1;
  readonly #wakeBuf = new Uint8Array(new BigUint64Array([1n]).buffer);
  readonly #wakeSink = new Uint8Array(64);
  // The wait's arguments, rebuilt only when the set or its interests change.
  #dirty = true;
  #snapshot: Entry[] = [];
  #pollFds = new Uint8Array(0);
  #pollView = new DataView(this.#pollFds.buffer);
  #readSet = new Uint8Array(C.SIZEOF_FD_SET);
  #writeSet = new Uint8Array(C.SIZEOF_FD_SET);
  #readTemplate = new Uint8Array(C.SIZEOF_FD_SET);
  #writeTemplate = new Uint8Array(C.SIZEOF_FD_SET);
  #maxFd = -1;
  #turnStarted = 0;

  constructor(mechanism: Mechanism = C.POLL_HANDLES_DEVICES ? "poll" : "select") {
    this.#mechanism = mechanism;
  }

  /**
   * Watches `fd` (which must be O_NONBLOCK) for `events` (`POLLIN`, `POLLOUT`);
   * `onReady` runs on the JS thread after each wait that reports it.
   */
  register(fd: number, events: number, onReady: ReadyCallback): void {
    if (this.#entries.has(fd)) throw new Error(`fd ${fd} is already registered`);
    if (this.#mechanism === "select" && fd >= C.FD_SETSIZE) {
      throw new Error(`fd ${fd} is beyond FD_SETSIZE (${C.FD_SETSIZE}); too many open files`);
    }
    this.#ensureWakeFd();
    this.#entries.set(fd, { fd, events, onReady });
    this.#changed();
    if (!this.#running) this.#run();
  }

  /** Changes the events watched for a registered fd; 0 pauses it (it stays open). */
  setEvents(fd: number, events: number): void {
    const entry = this.#entries.get(fd);
    if (entry === undefined || entry.events === events) return;
    entry.events = events;
    this.#changed();
  }

  /**
   * Stops watching `fd` and closes it, at once or, if a wait refers to it,
   * as soon as that wait settles. Resolves once the fd is closed.
   */
  unregister(fd: number): Promise<void> {
    if (!this.#entries.delete(fd)) return Promise.resolve();
    this.#changed();
    if (!this.#waiting) {
      libc().close(fd);
      return Promise.resolve();
    }
    return new Promise((done) => this.#deferred.push({ fd, done }));
  }

  #changed(): void {
    this.#dirty = true;
    if (this.#waiting && !this.#wakePending) {
      this.#wakePending = true;
      libc().write(this.#wakeWrite, this.#wakeBuf, 8n);
    }
  }

  #ensureWakeFd(): void {
    if (this.#wakeRead >= 0) return;
    const lib = libc();
    if (lib.eventfd !== null) {
      const fd = lib.eventfd(0, C.O_NONBLOCK | C.O_CLOEXEC);
      if (fd < 0) throw new Error("eventfd failed");
      this.#wakeRead = this.#wakeWrite = fd;
      return;
    }
    const pair = new Int32Array(2);
    if (lib.pipe(new Uint8Array(pair.buffer)) !== 0) throw new Error("pipe failed");
    for (const fd of pair) {
      if (!setCloexec(fd) || !addStatusFlags(fd, C.O_NONBLOCK)) throw new Error("fcntl failed");
    }
    [this.#wakeRead, this.#wakeWrite] = pair;
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      while (this.#entries.size > 0) {
        if (this.#dirty) this.#rebuild();
        this.#waiting = true;
        // -1 means EINTR (SIGCHLD storms) or a transient failure: just wait again.
        const n = this.#mechanism === "poll"
          ? await libc().poll(this.#pollFds, BigInt(this.#snapshot.length + 1), -1)
          : await this.#select();
        this.#waiting = false;
        this.#settle();
        if (n > 0) this.#dispatch();
        // A wait that is always ready (a flood) settles within the same turn of the event
        // loop, over and over, and would starve timers and other I/O (the server's own
        // stdin): after YIELD_MS of that, let the rest of the event loop run. Not through a
        // timer: setTimeout(0) is late by milliseconds, a good part of a flood's time.
        if (performance.now() - this.#turnStarted > YIELD_MS) {
          await yieldTurn();
          this.#turnStarted = performance.now();
        }
      }
    } finally {
      this.#running = false;
    }
  }

  #select(): Promise<number> {
    this.#readSet.set(this.#readTemplate);
    this.#writeSet.set(this.#writeTemplate);
    return libc().select(this.#maxFd + 1, this.#readSet, this.#writeSet, null, null);
  }

  /** After a wait: consume the wake-up, close deferred fds. */
  #settle(): void {
    if (this.#wakePending) {
      this.#wakePending = false;
      while (typeof readSome(this.#wakeRead, this.#wakeSink) === "number") { /* drain */ }
    }
    for (const { fd, done } of this.#deferred) {
      libc().close(fd);
      done();
    }
    this.#deferred = [];
  }

  #dispatch(): void {
    const snapshot = this.#snapshot;
    for (let i = 0; i < snapshot.length; i++) {
      const entry = snapshot[i];
      const revents = this.#mechanism === "poll"
        ? this.#pollView.getInt16((i + 1) * POLLFD_SIZE + 6, true)
        : (isSet(this.#readSet, entry.fd) ? C.POLLIN : 0) |
          (isSet(this.#writeSet, entry.fd) ? C.POLLOUT : 0);
      // Skip fds unregistered (or replaced) since the wait began.
      if (revents === 0 || this.#entries.get(entry.fd) !== entry) continue;
      try {
        entry.onReady(revents);
      } catch (error) {
        reportError(error);
      }
    }
  }

  #rebuild(): void {
    this.#dirty = false;
    // An fd watched for nothing is kept open but left out (poll would still report its hangup).
    this.#snapshot = [...this.#entries.values()].filter((entry) => entry.events !== 0);
    const all = [{ fd: this.#wakeRead, events: C.POLLIN }, ...this.#snapshot];
    if (this.#mechanism === "poll") {
      this.#pollFds = new Uint8Array(all.length * POLLFD_SIZE);
      this.#pollView = new DataView(this.#pollFds.buffer);
      all.forEach(({ fd, events }, i) => {
        this.#pollView.setInt32(i * POLLFD_SIZE, fd, true);
        this.#pollView.setInt16(i * POLLFD_SIZE + 4, events, true);
      });
      return;
    }
    this.#readTemplate.fill(0);
    this.#writeTemplate.fill(0);
    this.#maxFd = -1;
    for (const { fd, events } of all) {
      if (events & C.POLLIN) this.#readTemplate[fd >> 3] |= 1 << (fd & 7);
      if (events & C.POLLOUT) this.#writeTemplate[fd >> 3] |= 1 << (fd & 7);
      this.#maxFd = Math.max(this.#maxFd, fd);
    }
  }
}

function isSet(set: Uint8Array, fd: number): boolean {
  return (set[fd >> 3] & (1 << (fd & 7))) !== 0;
}

/** The loop all PTY masters of this process share. */
export const readinessLoop: ReadinessLoop = new ReadinessLoop();
