/**
 * The ConPTY terminal's state machine and its poll loop, on every OS, against
 * a scripted console: the order of the end (output read until quiet, the
 * console closed, its last frame read, then onExit once), input queueing,
 * and what interrupts, signals and kills become. The real console behind
 * it (pseudo_console.ts, conpty_spawn.ts) runs only on the Windows runner,
 * in tests/windows_test.ts; this pins down the logic that drives it.
 */
import { waitFor } from "../../dev/wait.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { PortalError } from "../../src/errors.ts";
import { SIGNALS } from "../../src/signals.ts";
import type { ExitInfo } from "../../src/terminal/terminal.ts";
import {
  CLOSE_DEADLINE_MS,
  ConPtyTerminal,
  type ConsoleProgram,
} from "../../src/terminal/windows/conpty_terminal.ts";
import { PollLoop } from "../../src/terminal/windows/poll_loop.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: number[]) => new TextDecoder().decode(new Uint8Array(bytes));

/** A console that does what the test sets up, and records what it was asked to do. */
class ScriptedConsole implements ConsoleProgram {
  readonly pid = 4242;
  /** Chunks waiting in the output pipe. */
  pending: Uint8Array[] = [];
  /** Whether the console has closed its end of the output pipe. */
  outputClosed = false;
  /** Bytes the input pipe still takes. */
  room = Infinity;
  readonly input: number[] = [];
  exit: ExitInfo | null = null;
  /** What the terminal asked for, with whether the program had exited by then. */
  readonly calls: string[] = [];
  /** What closeConsole returns; by default the close returns at once. */
  closing: Promise<void> | undefined;

  read(max: number): Uint8Array | null {
    const chunk = this.pending.shift();
    if (chunk === undefined) return this.outputClosed ? null : new Uint8Array(0);
    if (chunk.length > max) this.pending.unshift(chunk.subarray(max));
    return chunk.subarray(0, max);
  }
  write(chunk: Uint8Array): number {
    const taken = Math.min(this.room, chunk.length);
    this.input.push(...chunk.subarray(0, taken));
    this.room -= taken;
    return taken;
  }
  resize(cols: number, rows: number): void {
    this.calls.push(`resize ${cols}x${rows}`);
  }
  exited(): ExitInfo | null {
    return this.exit;
  }
  terminate(): void {
    this.calls.push("terminate");
    this.exit ??= { code: 1, signal: null };
  }
  closeConsole(): Promise<void> {
    this.calls.push(`closeConsole (exited: ${this.exit !== null})`);
    // Like ConPTY: a last frame, then the console's exit ends the pipe.
    this.pending.push(encode("[last frame]"));
    this.outputClosed = true;
    return this.closing ?? Promise.resolve();
  }
  dispose(): void {
    this.calls.push("dispose");
  }
}

/** A terminal on a scripted console, with everything its events reported. */
function start(session = new ScriptedConsole()) {
  const seen = { text: "", exits: [] as ExitInfo[], late: 0 };
  const term = new ConPtyTerminal(session, {
    onData(source, chunk) {
      assertEquals(source, "stdout");
      if (seen.exits.length > 0) seen.late++;
      seen.text += new TextDecoder().decode(chunk);
    },
    onExit(info) {
      seen.exits.push(info);
    },
  });
  const ended = () => waitFor("onExit", () => seen.exits.length, { until: (n) => n > 0 });
  return { session, term, seen, ended };
}

function assertPortalError(fn: () => unknown, pattern: RegExp): void {
  try {
    fn();
  } catch (error) {
    assert(error instanceof PortalError, `expected a PortalError, got ${error}`);
    assertMatch(error.message, pattern);
    return;
  }
  throw new Error(`expected a PortalError matching ${pattern}`);
}

Deno.test("conpty state: all output, then the console closed after the exit, then onExit once", async () => {
  const { session, seen, ended } = start();
  session.pending.push(encode("hello "));
  await waitFor("the first output", () => seen.text, { until: (t) => t === "hello " });
  session.exit = { code: 3, signal: null };
  // Output after the exit (the console painting the program's last words) still arrives.
  session.pending.push(encode("bye"));
  await ended();
  assertEquals(seen.text, "hello bye[last frame]");
  assertEquals(seen.exits, [{ code: 3, signal: null }]);
  assertEquals(session.calls, ["closeConsole (exited: true)", "dispose"]);
  assertEquals(seen.late, 0);
});

Deno.test("conpty state: kill terminates the job and resolves after onExit", async () => {
  const { session, term, seen } = start();
  await term.kill();
  assertEquals(seen.exits, [{ code: 1, signal: null }]);
  assertEquals(session.calls, ["terminate", "closeConsole (exited: true)", "dispose"]);
  // A second kill changes nothing.
  await term.kill();
  assertEquals(session.calls.length, 3);
  assertPortalError(() => term.write(encode("x")), /has exited/);
  assertPortalError(() => term.resize(100, 30), /has exited/);
});

Deno.test("conpty state: input the pipe cannot take yet is queued and delivered in order", async () => {
  const { session, term } = start();
  session.room = 3;
  term.write(encode("hello"));
  term.write(encode(" world"));
  assertEquals(decode(session.input), "hel");
  session.room = Infinity;
  await waitFor("the queued input", () => decode(session.input), {
    until: (t) => t === "hello world",
  });
  await term.kill();
});

Deno.test("conpty state: Ctrl+C is typed, a break refused, SIGTERM ends the job, eof is ^Z Enter", async () => {
  const { session, term } = start();
  assertEquals(term.interrupt("ctrl_c"), {
    signal: "CTRL_C_EVENT",
    delivered_to: "terminal input (^C)",
  });
  term.signal(SIGNALS.SIGINT);
  term.endInput();
  assertEquals(session.input, [0x03, 0x03, 0x1a, 0x0d]);
  assertPortalError(() => term.interrupt("ctrl_break"), /CTRL_BREAK_EVENT cannot be delivered/);
  assertPortalError(() => term.signal(SIGNALS.SIGQUIT), /SIGQUIT cannot reach .* SIGTERM/);
  term.resize(100, 30);
  assertPortalError(() => term.resize(0, 30), /Invalid terminal size/);
  term.signal(SIGNALS.SIGTERM);
  assertEquals(session.calls.slice(0, 2), ["resize 100x30", "terminate"]);
  await term.kill();
});

Deno.test("conpty state: a close that never returns is given up after its deadline", async () => {
  const session = new ScriptedConsole();
  session.closing = new Promise(() => {});
  const { term, seen, ended } = start(session);
  session.exit = { code: 0, signal: null };
  await ended();
  assertEquals(seen.text, "[last frame]");
  assertEquals(session.calls, ["closeConsole (exited: true)", "dispose"]);
  assert(CLOSE_DEADLINE_MS < 10_000, "the wait above has a 10 s deadline");
  await term.kill();
});

Deno.test("poll loop: entries leave during a tick, a failing one does not stop the rest", async () => {
  const loop = new PollLoop();
  const errors: unknown[] = [];
  const onError = (event: ErrorEvent) => {
    event.preventDefault();
    errors.push(event.error);
  };
  globalThis.addEventListener("error", onError);
  try {
    const polled: string[] = [];
    const failing = {
      poll(): boolean {
        polled.push("failing");
        loop.remove(failing);
        throw new Error("boom");
      },
    };
    const victim = { poll: () => (polled.push("victim"), false) };
    const remover = {
      poll(): boolean {
        polled.push("remover");
        loop.remove(victim);
        loop.remove(remover);
        return true;
      },
    };
    loop.add(failing);
    loop.add(remover);
    loop.add(victim);
    await waitFor("every entry to leave", () => loop.size, { until: (n) => n === 0 });
    // The victim was removed by an entry polled before it, in the same tick.
    assertEquals(polled, ["failing", "remover"]);
    assertEquals(errors.map((e) => (e as Error).message), ["boom"]);
  } finally {
    globalThis.removeEventListener("error", onError);
  }
});
