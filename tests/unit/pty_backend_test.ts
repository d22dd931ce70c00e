/**
 * The PTY backend against real programs: terminal semantics, exit reporting,
 * signals, session teardown, many PTYs at once, and write back-pressure.
 */
import { homeEnv } from "../../dev/home.ts";
import { BASH_ARGS } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";
import { posixTest } from "../helpers/platform.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { pidAlive, processTable, waitForeground } from "../helpers/processes.ts";
import { spawnPty } from "../../src/terminal/backends.ts";
import { PortalError } from "../../src/errors.ts";
import { SIGNALS } from "../../src/signals.ts";
import type { ExitInfo, Terminal } from "../../src/terminal/terminal.ts";
import { fcntl, libc } from "../../ffi/libc.ts";
import { addStatusFlags } from "../../ffi/fd_flags.ts";
import { C } from "../../ffi/os_constants.ts";
import { ReadinessLoop } from "../../ffi/readiness_loop.ts";

const encode = (text: string) => new TextEncoder().encode(text);

interface Run {
  term: Terminal;
  /** Everything received so far, decoded. */
  text(): string;
  bytes: number;
  exit: ExitInfo | null;
  /** Waits (with a deadline) for onExit and returns what it reported. */
  exited(): Promise<ExitInfo>;
  /** onData calls after onExit, or a second onExit: must stay 0. */
  lateEvents: number;
}

type Runner = (command: string, args: string[], size?: { cols: number; rows: number }) => Run;

function run(
  env: Record<string, string>,
  command: string,
  args: string[],
  size = { cols: 80, rows: 24 },
): Run {
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  const r: Run = {
    term: undefined as unknown as Terminal,
    text: () => chunks.join(""),
    bytes: 0,
    exit: null,
    exited: async () =>
      (await waitFor(`${command} to exit`, () => ({ exit: r.exit, output: r.text() }), {
        until: (seen) => seen.exit !== null,
      })).exit!,
    lateEvents: 0,
  };
  r.term = spawnPty({ command, args, cwd: "/tmp", env, ...size }, {
    onData(source, chunk) {
      assertEquals(source, "stdout");
      if (r.exit !== null) r.lateEvents++;
      r.bytes += chunk.length;
      chunks.push(decoder.decode(chunk, { stream: true }));
    },
    onExit(info) {
      if (r.exit !== null) r.lateEvents++;
      r.exit = info;
    },
  });
  return r;
}

/**
 * A {@link posixTest} whose programs run with a temporary HOME (bash -i saves
 * its history there on exit), removed afterwards. `env` is that environment.
 */
function ptyTest(
  name: string,
  fn: (run: Runner, env: Record<string, string>) => Promise<void> | void,
  options: { only?: typeof Deno.build.os } = {},
): void {
  posixTest(name, async () => {
    await using home = await tempDir("portal-home-");
    const env = { ...Deno.env.toObject(), ...homeEnv(home.path) };
    await fn((command, args, size) => run(env, command, args, size), env);
  }, options);
}

/** Runs `fn`, expecting a PortalError whose message includes `includes`; returns it. */
function assertThrows(fn: () => void, _type: typeof PortalError, includes = ""): PortalError {
  try {
    fn();
  } catch (error) {
    assert(error instanceof PortalError, `expected a PortalError, got ${error}`);
    assert(error.message.includes(includes), `unexpected message: ${error.message}`);
    return error;
  }
  throw new Error("expected a PortalError, but nothing was thrown");
}

ptyTest("the program sees a real terminal, as its controlling terminal", async (run) => {
  const r = run("python3", ["-c", "import os,sys;print(os.isatty(0), os.ttyname(0))"]);
  assertEquals(await r.exited(), { code: 0, signal: null });
  assertMatch(r.text(), /^True \/dev\/(pts\/\d+|ttys\d+)\r\n$/);
  // Only a controlling terminal can be opened as /dev/tty (sudo and ssh prompts need it).
  const ctty = run("sh", ["-c", "exec 3</dev/tty && echo ctty-ok"]);
  assertEquals(await ctty.exited(), { code: 0, signal: null });
  assertEquals(ctty.text(), "ctty-ok\r\n");
});

ptyTest("written input is echoed and read", async (run) => {
  const r = run("cat", []);
  r.term.write(encode("hello portal\n"));
  // Once as the terminal's echo, once as cat's output.
  await waitFor("echo and output", r.text, {
    until: (text) => text.split("hello portal\r\n").length === 3,
  });
  await r.term.kill();
  assertEquals(r.exit?.signal, "SIGHUP");
});

ptyTest("initial size and resize are visible to the program", async (run) => {
  const r = run("sh", ["-c", "stty size; read x; stty size"], { cols: 100, rows: 30 });
  await waitFor("the initial size", r.text, { until: (text) => text.includes("30 100\r\n") });
  r.term.resize(120, 40);
  r.term.write(encode("\n"));
  assertEquals(await r.exited(), { code: 0, signal: null });
  assert(r.text().includes("40 120\r\n"), r.text());
  assertThrows(() => r.term.resize(0, 10), PortalError, "1 to 1000");
});

ptyTest("exit code and terminating signal are reported", async (run) => {
  assertEquals(await run("sh", ["-c", "exit 3"]).exited(), { code: 3, signal: null });
  assertEquals(await run("sh", ["-c", "kill -9 $$"]).exited(), {
    code: null,
    signal: "SIGKILL",
  });
});

ptyTest("a program that closes its terminal before it exits keeps its exit code", async (run) => {
  // Its output ends (EIO) while it still runs: the master must stay open until it is reaped,
  // or the hangup would kill it with SIGHUP (GNU cat closes stdin, stdout and stderr at the end).
  const r = run("sh", ["-c", "exec 0<&- 1>&- 2>&-; sleep 0.3; exit 3"]);
  assertEquals(await r.exited(), { code: 3, signal: null });
});

ptyTest("signal() reaches the foreground job, not the shell", async (run) => {
  const r = run("bash", BASH_ARGS);
  const prompts = () => r.text().split("PORTAL$ ").length - 1;
  r.term.write(encode("PS1='PORTAL$ '\n"));
  await waitFor("the prompt", prompts);
  r.term.write(encode("sleep 100\n"));
  const [sleep] = (await waitForeground(r.term.pid, "sleep")).filter((p) => p.comm === "sleep");
  const before = prompts();
  r.term.signal(SIGNALS.SIGINT);
  await waitFor("the prompt after SIGINT", prompts, { until: (n) => n > before });
  await waitFor("sleep to end", () => !pidAlive(sleep.pid));
  assert(pidAlive(r.term.pid), "bash must survive SIGINT");
  assertEquals(r.exit, null);
  r.term.write(encode("exit 7\n"));
  assertEquals(await r.exited(), { code: 7, signal: null });
}, { only: "linux" });

ptyTest("Ctrl-C written to the terminal interrupts python", async (run) => {
  // Python's SIGINT handler is in place before 'ready' is printed, so the ^C can follow at once.
  const r = run("python3", ["-c", "print('ready', flush=True)\nwhile True: pass"]);
  await waitFor("python to start", r.text, { until: (text) => text.includes("ready") });
  r.term.write(encode("\x03"));
  await r.exited();
  assert(r.text().includes("KeyboardInterrupt"), r.text());
});

ptyTest("all output of a program that exits at once arrives before onExit", async (run) => {
  for (let i = 0; i < 5; i++) {
    const r = run("python3", ["-c", "import sys; sys.stdout.write('x' * 204800)"]);
    assertEquals(await r.exited(), { code: 0, signal: null });
    assertEquals(r.bytes, 204800);
    assertEquals(r.lateEvents, 0);
  }
});

ptyTest("a stray job holding the terminal does not hold back onExit", async (run) => {
  // The job leaves the session (so no hangup reaches it) before sh exits.
  const r = run("sh", ["-c", "setsid sh -c 'echo bg=$$; exec sleep 100' & read x"]);
  let stray = 0;
  try {
    const text = await waitFor("the stray job", r.text, { until: (t) => /bg=\d+/.test(t) });
    stray = Number(/bg=(\d+)/.exec(text)![1]);
    r.term.write(encode("\n"));
    assertEquals(await r.exited(), { code: 0, signal: null });
    // onExit came while the stray job, which lives 100 s, still held the terminal open.
    assert(pidAlive(stray), "the stray job kept the terminal open");
  } finally {
    if (stray > 0 && pidAlive(stray)) Deno.kill(stray, "SIGKILL");
  }
}, { only: "linux" });

ptyTest("kill() ends the whole session, including a job that ignores SIGHUP", async (run) => {
  const r = run("bash", BASH_ARGS);
  r.term.write(encode("(trap '' HUP; exec sleep 100) & echo \"bg=$!\"\n"));
  const text = await waitFor("the background job", r.text, { until: (t) => /bg=\d+/.test(t) });
  const job = Number(/bg=(\d+)/.exec(text)![1]);
  // Once it is sleep, the job has run its trap: it ignores SIGHUP (ignoring survives exec).
  await waitFor("the job to be sleep", () => processTable([job])[0]?.comm, {
    until: (comm) => comm === "sleep",
  });
  await r.term.kill(200);
  assert(r.exit !== null, "kill() resolves after onExit");
  await waitFor("the background job to die", () => !pidAlive(job));
  // Killing again, and writing to it, are harmless or explained.
  await r.term.kill();
  assertThrows(() => r.term.write(encode("x")), PortalError, "exited");
  assertThrows(() => r.term.signal(SIGNALS.SIGINT), PortalError, "exited");
}, { only: "linux" });

ptyTest("50 terminals at once each get their own input back", async (run) => {
  const runs = Array.from({ length: 50 }, () => run("cat", []));
  try {
    runs.forEach((r, i) => r.term.write(encode(`token-${i}-end\n`)));
    await waitFor("every token", () => runs.map((r) => r.text()), {
      until: (texts) => texts.every((t, i) => t.split(`token-${i}-end\r\n`).length === 3),
      timeoutMs: 15_000,
    });
    runs.forEach((r, i) => assert(!r.text().includes(`token-${(i + 1) % 50}-`)));
  } finally {
    await Promise.all(runs.map((r) => r.term.kill()));
  }
});

ptyTest("a 4 MB write is queued and delivered while the event loop runs on", async (run) => {
  const r = run("sh", ["-c", "stty -echo; echo READY; exec cat"]);
  await waitFor("stty -echo", r.text, { until: (text) => text.includes("READY\r\n") });
  const line = "0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQ\n"; // 64 bytes
  const lines = 65536;
  const total = lines * 65; // cat echoes each line back with CRLF
  const start = r.bytes;
  // Progress seen by timers: a timer that fires mid-transfer proves the loop was not blocked.
  const seenByTimers: number[] = [];
  const ticker = setInterval(() => seenByTimers.push(r.bytes - start), 1);
  try {
    r.term.write(encode(line.repeat(lines)));
    // Output is only delivered from the event loop: write() returned without waiting for it.
    assert(r.bytes - start < total, "write() returned before its data came back");
    await waitFor("all 4 MB back", () => r.bytes - start, {
      until: (n) => n >= total,
      timeoutMs: 60_000,
    });
    assertEquals(r.bytes - start, total);
    assert(
      seenByTimers.some((n) => n > 0 && n < total),
      `no timer ran while the data flowed: ${seenByTimers.length} ticks`,
    );
  } finally {
    clearInterval(ticker);
    await r.term.kill();
  }
});

ptyTest("writing to a program that never reads fails once the queue is full", async (run) => {
  const r = run("sleep", ["100"]);
  try {
    const chunk = encode("y".repeat(1023) + "\n").slice();
    const mib = new Uint8Array(1024 * 1024).map((_, i) => chunk[i % 1024]);
    const error = assertThrows(() => {
      for (let i = 0; i < 20; i++) r.term.write(mib);
    }, PortalError);
    assertMatch(error.message, /not reading its input/);
  } finally {
    await r.term.kill();
  }
  assertEquals(r.exit?.signal, "SIGHUP");
});

ptyTest("bad command, bad cwd and bad size are refused up front", (_run, env) => {
  const events = { onData() {}, onExit() {} };
  const base = { args: [], cwd: "/tmp", env, cols: 80, rows: 24 };
  assertThrows(
    () => spawnPty({ ...base, command: "no-such-program-portal" }, events),
    PortalError,
    `Command not found: "no-such-program-portal"`,
  );
  assertThrows(
    () => spawnPty({ ...base, command: "sh", env: { PATH: "/nonexistent" } }, events),
    PortalError,
    `Command not found: "sh"`,
  );
  assertThrows(
    () => spawnPty({ ...base, command: "sh", cwd: "/no/such/dir" }, events),
    PortalError,
    "does not exist",
  );
  assertThrows(
    () => spawnPty({ ...base, command: "sh", cols: 5000 }, events),
    PortalError,
    "1 to 1000",
  );
});

ptyTest("kill() and write() after exit are harmless or explained", async (run) => {
  const r = run("true", []);
  await r.exited();
  await r.term.kill();
  await r.term.kill();
  assertThrows(() => r.term.write(encode("x")), PortalError, "exited");
  assertThrows(() => r.term.resize(80, 24), PortalError, "exited");
});

posixTest("the select mechanism (macOS default) reports readiness and closes fds", async () => {
  const lib = libc();
  const fds = new Int32Array(2);
  assertEquals(lib.pipe(fds), 0);
  // Moved to fd numbers nothing else takes (the kernel gives the lowest free one), so that "closed"
  // below cannot be a number another part of the process opened again meanwhile.
  const F_DUPFD = 0; // on Linux and macOS alike
  const [readEnd, writeEnd] = [...fds].map((fd) => {
    const high = fcntl(fd, F_DUPFD, 900);
    assert(high >= 900 && lib.close(fd) === 0);
    return high;
  });
  assert(addStatusFlags(readEnd, C.O_NONBLOCK) && addStatusFlags(writeEnd, C.O_NONBLOCK));
  const loop = new ReadinessLoop("select");
  let got = "";
  loop.register(readEnd, C.POLLIN, () => {
    const buf = new Uint8Array(64);
    const n = Number(lib.read(readEnd, buf, 64n));
    if (n > 0) got += new TextDecoder().decode(buf.subarray(0, n));
  });
  let writable = 0;
  loop.register(writeEnd, C.POLLOUT, () => {
    writable++;
    loop.setEvents(writeEnd, 0);
  });
  await waitFor("POLLOUT", () => writable, { until: (n) => n === 1 });
  assertEquals(Number(lib.write(writeEnd, encode("ping"), 4n)), 4);
  await waitFor("POLLIN", () => got, { until: (text) => text === "ping" });
  await loop.unregister(writeEnd);
  await loop.unregister(readEnd);
  assertEquals(fcntl(readEnd, C.F_GETFD), -1, "unregister closed the fd");
  assertEquals(fcntl(writeEnd, C.F_GETFD), -1, "unregister closed the fd");
});

ptyTest("the child inherits only fds 0-2 and default signal dispositions", async (run) => {
  // ls lists the fds of the shell, which has run nothing else.
  const fds = run("sh", ["-c", "ls -1 /proc/$$/fd"]);
  assertEquals(await fds.exited(), { code: 0, signal: null });
  assertEquals(fds.text(), "0\r\n1\r\n2\r\n");
  // Deno ignores SIGPIPE: inherited, yes would not die of it (status 141).
  const r = run("bash", ["-c", 'yes | head -1; echo "pipe=${PIPESTATUS[0]}"']);
  assertEquals(await r.exited(), { code: 0, signal: null });
  assertEquals(r.text(), "y\r\npipe=141\r\n");
  // And the parent keeps none of theirs, counted in a process of its own (see the helper).
  const { success, stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../helpers/pty_fd_leak.ts", import.meta.url).pathname],
    stderr: "inherit",
  }).output();
  assert(success, "pty_fd_leak.ts failed");
  const { before, after } = JSON.parse(new TextDecoder().decode(stdout));
  assertEquals(after, before, "no fd leaked");
}, { only: "linux" });
