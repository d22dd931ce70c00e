/**
 * Every way a program ends reaches `exited` or `killed` with its code or its
 * signal's name, on pipes and on a PTY: real-time signals (from
 * process_signal or from the program itself), core dumps, stop and continue;
 * and process_kill_all answers per process.
 */
import { tempDir } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";
import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { portalTest as ownPortalTest, sharedPortal } from "../helpers/portal.ts";
import { alive, processTable } from "../helpers/processes.ts";

// One server for the tests that look at their own processes only; kill_all has its own.
const { portalTest } = sharedPortal();

const MODES = [{ pty: false }, { pty: true }];
const ended = (info: { status: string; exit_code: number | null; exit_signal: string | null }) => [
  info.status,
  info.exit_code,
  info.exit_signal,
];

portalTest(
  "exit: SIGRTMIN+3 from process_signal ends pipe and PTY programs, by name",
  async (portal) => {
    await Promise.all(MODES.map(async ({ pty }) => {
      const id = await portal.spawn("sleep", ["1000"], { pty });
      const sent = await portal.call("process_signal", { id, signal: "SIGRTMIN+3" });
      assertEquals(sent.signal, "SIGRTMIN+3");
      const info = await portal.waitExit(id);
      assertEquals([...ended(info), info.core_dumped], ["exited", null, "SIGRTMIN+3", false]);
      // An ordinary ended process now: kill says why it cannot, cleanup removes it.
      assertMatch(
        await portal.fail("process_kill", { id }),
        /Cannot kill process \d+: it has exited \(by signal SIGRTMIN\+3\) and nothing it started/,
      );
      assertEquals(await portal.call("process_cleanup", { id }), { id, removed: true });
    }));
  },
  { only: "linux" },
); // macOS has no real-time signals

portalTest("exit: a program that kills itself with a real-time signal", async (portal) => {
  const programs = [
    {
      command: "python3",
      args: ["-c", "import os,signal; os.kill(os.getpid(), signal.SIGRTMIN+2)"],
    },
    { command: "sh", args: ["-c", "kill -s RTMAX $$"] },
  ];
  await Promise.all(MODES.flatMap(({ pty }) =>
    programs.map(async ({ command, args }, i) => {
      const info = await portal.waitExit(await portal.spawn(command, args, { pty }));
      assertEquals(ended(info), ["exited", null, ["SIGRTMIN+2", "SIGRTMAX"][i]]);
    })
  ));
}, { only: "linux" });

portalTest(
  "exit: a core dump ends as SIGABRT or SIGSEGV, core_dumped as the kernel reports it",
  async (portal) => {
    await using temp = await tempDir();
    // Core files land in the program's cwd (the temp dir) if the system writes them there.
    const allowCore = "import os,resource\nhard=resource.getrlimit(resource.RLIMIT_CORE)[1]\n" +
      "resource.setrlimit(resource.RLIMIT_CORE,(hard,hard))\n";
    const crashes = [
      { code: allowCore + "os.abort()", signal: "SIGABRT", number: 6 },
      { code: allowCore + "import ctypes\nctypes.string_at(0)", signal: "SIGSEGV", number: 11 },
    ];
    // A directory per crash: two dumps to one "core" file would spoil each other.
    const dir = (name: string) => Deno.makeTempDir({ dir: temp.path, prefix: name });
    // The oracle: the same crash in a child of Python, whose wait status says whether it dumped.
    const oracle = async (code: string) => {
      const parent = "import os,sys\npid=os.fork()\nif pid==0: exec(sys.argv[1])\n" +
        "_,st=os.waitpid(pid,0)\nprint(os.WTERMSIG(st), os.WCOREDUMP(st))";
      const cwd = await dir("oracle");
      const { stdout } = await new Deno.Command("python3", { args: ["-c", parent, code], cwd })
        .output();
      return new TextDecoder().decode(stdout).trim();
    };
    await Promise.all(MODES.flatMap(({ pty }) =>
      crashes.map(async ({ code, signal, number }) => {
        const cwd = await dir("crash");
        const id = await portal.spawn("python3", ["-c", code], { pty, cwd });
        const info = await portal.waitExit(id);
        assertEquals(ended(info), ["exited", null, signal]);
        assertEquals(`${number} ${info.core_dumped ? "True" : "False"}`, await oracle(code));
      })
    ));
  },
);

portalTest(
  "stop and continue: a stopped program stays running, then continues and exits normally",
  async (portal) => {
    await Promise.all(MODES.map(async ({ pty }) => {
      const id = await portal.spawn("python3", [
        "-uc",
        "import sys\nprint('ready')\nline = sys.stdin.readline()\nprint('got', line.strip())\n" +
        "sys.exit(3)",
      ], { pty });
      await portal.readUntil(id, (t) => t.includes("ready"));
      const pid = (await portal.call("process_inspect", { id })).os_pid;
      const state = () => processTable([pid])[0]?.stat ?? "gone";
      await portal.call("process_signal", { id, signal: "SIGSTOP" });
      await waitFor(`pid ${pid} to stop`, state, { until: (s) => s.startsWith("T") });
      assertEquals((await portal.call("process_inspect", { id })).status, "running");
      await portal.call("process_signal", { id, signal: "SIGCONT" });
      await waitFor(`pid ${pid} to continue`, state, { until: (s) => !s.startsWith("T") });
      await portal.call("process_write", { id, content: "hello\n", wait: "none" });
      await portal.readUntil(id, (t) => t.includes("got hello"));
      assertEquals(ended(await portal.waitExit(id)), ["exited", 3, null]);
    }));
  },
);

/** Lets any process trace this one (Yama), says so, then sleeps. */
const TRACEABLE = "import ctypes,time\n" +
  "ctypes.CDLL(None).prctl(0x59616d61, ctypes.c_ulong(-1), 0, 0, 0)  # PR_SET_PTRACER_ANY\n" +
  "print('ready', flush=True)\ntime.sleep(1000)";
/** Attaches to argv[1] (PTRACE_SEIZE) and never waits for it, until its stdin closes. */
const TRACER = "import ctypes,sys\nlibc=ctypes.CDLL(None, use_errno=True)\n" +
  "if libc.ptrace(0x4206, int(sys.argv[1]), None, None) != 0:\n" +
  "  sys.exit('ptrace: errno ' + str(ctypes.get_errno()))\n" +
  "print('attached', flush=True)\nsys.stdin.read()";

ownPortalTest(
  "kill_all: per process, over a mix with one that cannot be killed (a tracer holds it)",
  async (portal) => {
    // A tracee's zombie can be reaped only by its tracer: until this one lets go, the
    // kill cannot complete, and kill_all must report it and end the rest.
    const traced = await portal.spawn("python3", ["-c", TRACEABLE]);
    await portal.readUntil(traced, (t) => t.includes("ready"));
    const tracer = new Deno.Command("python3", {
      args: ["-c", TRACER, String((await portal.call("process_inspect", { id: traced })).os_pid)],
      stdin: "piped",
      stdout: "piped",
    }).spawn();
    const said = tracer.stdout.getReader();
    // Closing its stdin ends the tracer, which lets go of the tracee.
    let released: Promise<void> | undefined;
    const release = () =>
      released ??= Promise.all([tracer.stdin.close().catch(() => {}), said.cancel(), tracer.status])
        .then(() => {});
    await using _ = { [Symbol.asyncDispose]: release };
    let line = "";
    for (let chunk; !line.includes("\n") && !(chunk = await said.read()).done;) {
      line += new TextDecoder().decode(chunk.value);
    }
    assertEquals(line, "attached\n", "the tracer attached (ptrace permitted)");

    const pipe = await portal.spawn("sleep", ["1000"]);
    const pty = await portal.spawn("sleep", ["1000"], { pty: true });
    const stopped = await portal.spawn("sleep", ["1000"]);
    await portal.call("process_signal", { id: stopped, signal: "SIGSTOP" });
    // Dead by a real-time signal: Deno.Command's status could not name it, the
    // entry stayed running, and process_kill_all failed on it ("Invalid signal: 37").
    const realtime = await portal.spawn("sleep", ["1000"]);
    await portal.call("process_signal", { id: realtime, signal: "SIGRTMIN+3" });
    // Exited, leaving a job behind.
    const leaver = await portal.spawn("sh", ["-c", "sleep 1000 & echo $!"]);
    const job = Number((await portal.readUntil(leaver, (t) => t.endsWith("\n"))).trim());
    const done = await portal.spawn("true");
    for (const id of [realtime, leaver, done]) await portal.waitExit(id);
    assertEquals(alive([job]), [job]);

    const result = await portal.call("process_kill_all");
    result.killed.sort((a: number, b: number) => a - b);
    assertEquals(result.failed.map((f: { id: number }) => f.id), [traced]);
    assertMatch(result.failed[0].error, /not gone 5 s after SIGKILL: something holds it/);
    assertEquals(result, {
      killed: [pipe, pty, stopped],
      leftovers_killed: [leaver],
      failed: result.failed,
      left_running: [],
    });
    assertEquals(alive([job]), []);
    // Once the tracer lets go, the kill completes.
    await release();
    assertEquals((await tracer.status).code, 0);
    assertEquals((await portal.waitExit(traced)).status, "killed");
    const { processes } = await portal.call("process_list");
    const statuses = Object.fromEntries(
      processes.map((p: { id: number; status: string }) => [p.id, p.status]),
    );
    assertEquals(statuses, {
      [traced]: "killed",
      [pipe]: "killed",
      [pty]: "killed",
      [stopped]: "killed",
      [realtime]: "exited",
      [leaver]: "exited",
      [done]: "exited",
    });
    // A stopped program was continued to act on SIGTERM.
    assertEquals((await portal.call("process_inspect", { id: stopped })).exit_signal, "SIGTERM");
    assertEquals(await portal.call("process_kill_all"), {
      killed: [],
      leftovers_killed: [],
      failed: [],
      left_running: [],
    });
  },
  { only: "linux" },
);
