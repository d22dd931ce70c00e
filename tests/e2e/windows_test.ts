/**
 * The Windows backends against real Windows programs: cmd.exe, PowerShell
 * and Python (when the runner has it on PATH) on a ConPTY; Job Objects
 * ending a program's whole tree on process_kill and when the server itself
 * is killed. Only the Windows CI runner runs these; elsewhere each is
 * reported as ignored, with the reason in its name.
 */
import { Portal } from "../../dev/portal_client.ts";
import { waitFor } from "../../dev/wait.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { windowsTest } from "../helpers/platform.ts";
import { pidAlive } from "../helpers/processes.ts";
import { spawnPty } from "../../src/terminal/backends.ts";
import type { ExitInfo } from "../../src/terminal/terminal.ts";
import { findWindowsProgram } from "../../src/terminal/windows/executable.ts";

/** A first PowerShell start on a fresh runner can take many seconds. */
const START_MS = 60_000;
const POWERSHELL = ["-NoLogo", "-NoProfile"];
/** Starts ping as a child (sharing the console), prints its pid, waits for it. */
const PING_CHILD = "$p = Start-Process ping -ArgumentList '-n','1000','127.0.0.1' " +
  "-NoNewWindow -PassThru; Write-Output ('child:' + $p.Id); Wait-Process -Id $p.Id";

function onPath(name: string): boolean {
  try {
    findWindowsProgram(name, Deno.env.toObject(), Deno.cwd());
    return true;
  } catch {
    return false;
  }
}

/** Off Windows the test is ignored anyway; there only a missing python is worth saying. */
const PYTHON = {
  ok: Deno.build.os !== "windows" || onPath("python"),
  reason: "needs python on PATH",
};

/** A {@link windowsTest} with a fresh server, closed whatever the outcome. */
function windowsPortalTest(
  name: string,
  fn: (portal: Portal) => Promise<void>,
  needs?: { ok: boolean; reason: string },
): void {
  windowsTest(name, async () => {
    await using portal = await Portal.start();
    await fn(portal);
  }, needs);
}

/** Waits until a line of the screen satisfies `test`. */
function screenLine(
  portal: Portal,
  id: number,
  test: (line: string) => boolean,
  timeoutMs?: number,
) {
  return portal.screenUntil(id, (screen) => screen.lines.some(test), timeoutMs);
}

/** Starts PING_CHILD with `pty`; returns its id, its pid and ping's pid. */
async function startPingTree(portal: Portal, pty: boolean) {
  const id = await portal.spawn("powershell.exe", [...POWERSHELL, "-Command", PING_CHILD], { pty });
  // Up to the line's end: a pid cut between two reads would name another process.
  const out = await portal.readUntil(id, (t) => /child:\d+\s/.test(t), { timeoutMs: START_MS });
  const child = Number(/child:(\d+)\s/.exec(out)![1]);
  const { os_pid } = await portal.call("process_inspect", { id });
  return { id, pid: os_pid as number, child };
}

windowsPortalTest(
  "cmd.exe on a ConPTY: prompt, a command, the screen, Ctrl+C, exit code",
  async (portal) => {
    const id = await portal.spawn("cmd.exe", ["/d"], { pty: true });
    await screenLine(portal, id, (line) => /^[A-Z]:\\.*>$/.test(line.trimEnd()), START_MS);
    await portal.call("process_write", { id, content: "set /a 6*7\r" });
    await portal.readUntil(id, (t) => /\b42\b/.test(t));
    await screenLine(portal, id, (line) => line.trim() === "42");
    // ^C typed into the console stops the running command, not cmd.
    await portal.call("process_write", { id, content: "ping -n 60 127.0.0.1\r" });
    await portal.readUntil(id, (t) => t.includes("Reply from"), { timeoutMs: 20_000 });
    await portal.call("process_write", { id, content: "\x03" });
    await portal.readUntil(id, (t) => /Control-C|\^C/.test(t));
    await portal.call("process_write", { id, content: "exit 3\r" });
    const info = await portal.waitExit(id);
    assertEquals([info.status, info.exit_code, info.exit_signal], ["exited", 3, null]);
  },
);

windowsPortalTest("powershell.exe on a ConPTY: prompt, a command, exit code", async (portal) => {
  const id = await portal.spawn("powershell.exe", POWERSHELL, { pty: true });
  await screenLine(portal, id, (line) => /^PS .*>$/.test(line.trimEnd()), START_MS);
  // The echo shows the expression; only its value reads xxx42.
  await portal.call("process_write", { id, content: "Write-Output ('x' * 3 + 6 * 7)\r" });
  await portal.readUntil(id, (t) => t.includes("xxx42"), { timeoutMs: 20_000 });
  await portal.call("process_write", { id, content: "exit 7\r" });
  const info = await portal.waitExit(id, 20_000);
  assertEquals([info.status, info.exit_code], ["exited", 7]);
});

windowsPortalTest("resize: PowerShell sees the new console size", async (portal) => {
  const id = await portal.spawn("powershell.exe", POWERSHELL, { pty: true, cols: 100, rows: 30 });
  await screenLine(portal, id, (line) => /^PS .*>$/.test(line.trimEnd()), START_MS);
  const ask = { id, content: '"size:$([Console]::WindowWidth)x$([Console]::WindowHeight)"\r' };
  await portal.call("process_write", ask);
  await portal.readUntil(id, (t) => t.includes("size:100x30"), { timeoutMs: 20_000 });
  const screen = await portal.call("process_screen", { id, cols: 120, rows: 40 });
  assertEquals([screen.cols, screen.rows], [120, 40]);
  await portal.call("process_write", ask);
  await portal.readUntil(id, (t) => t.includes("size:120x40"), { timeoutMs: 20_000 });
  await portal.call("process_kill", { id });
});

windowsPortalTest(
  "python REPL on a ConPTY: a value, ^C typed and CTRL_C_EVENT, eof",
  async (portal) => {
    const id = await portal.spawn("python", ["-q"], { pty: true });
    await portal.readUntil(id, (t) => t.includes(">>> "), { timeoutMs: START_MS });
    await portal.call("process_write", { id, content: "6*7\r" });
    await portal.readUntil(id, (t) => /\b42\b/.test(t));
    await portal.call("process_write", { id, content: "import time; time.sleep(60)\r" });
    await portal.readUntil(id, (t) => t.includes("time.sleep(60)"));
    await portal.call("process_write", { id, content: "\x03" });
    await portal.readUntil(id, (t) => t.includes("KeyboardInterrupt"));
    await portal.call("process_write", { id, content: "time.sleep(60)\r" });
    await portal.readUntil(id, (t) => t.includes("time.sleep(60)"));
    const sent = await portal.call("process_signal", { id, signal: "CTRL_C_EVENT" });
    assertEquals(sent.delivered_to, "terminal input (^C)");
    await portal.readUntil(id, (t) => t.includes("KeyboardInterrupt"));
    // eof types Ctrl+Z and Enter: the end of input of a Windows console.
    await portal.call("process_write", { id, content: "", eof: true });
    const info = await portal.waitExit(id);
    assertEquals([info.status, info.exit_code], ["exited", 0]);
  },
  PYTHON,
);

windowsPortalTest("process_kill ends the whole tree, on a ConPTY and on pipes", async (portal) => {
  for (const pty of [true, false]) {
    const tree = await startPingTree(portal, pty);
    assert(pidAlive(tree.child), `ping (${tree.child}) runs`);
    const killed = await portal.call("process_kill", { id: tree.id });
    assertEquals([killed.status, killed.exit_code], ["killed", 1]);
    await waitFor(`ping (pty: ${pty}) to die with its job`, () => !pidAlive(tree.child));
  }
});

windowsTest(
  "server killed by taskkill /F: every program and its children die (Job Objects)",
  async () => {
    await using portal = await Portal.start();
    const pids: number[] = [];
    for (const pty of [true, false]) {
      const tree = await startPingTree(portal, pty);
      pids.push(tree.pid, tree.child);
    }
    const server = portal.transport.pid!;
    // TerminateProcess: none of the server's shutdown code runs; only the jobs can act.
    const taskkill = await new Deno.Command("taskkill", {
      args: ["/F", "/PID", String(server)],
      stdout: "null",
    }).output();
    assert(taskkill.success, "taskkill /F succeeded");
    await waitFor("the server to exit", () => !pidAlive(server));
    for (const pid of pids) {
      await waitFor(`process ${pid} to die with the server`, () => !pidAlive(pid));
    }
  },
);

windowsPortalTest(
  "interrupts Windows cannot deliver are refused with what to do instead",
  async (portal) => {
    const pty = await portal.spawn("cmd.exe", ["/d"], { pty: true });
    assertMatch(
      await portal.fail("process_signal", { id: pty, signal: "CTRL_BREAK_EVENT" }),
      /CTRL_BREAK_EVENT cannot be delivered .* CTRL_C_EVENT/,
    );
    const pipe = await portal.spawn("cmd.exe", ["/d"]);
    assertMatch(
      await portal.fail("process_signal", { id: pipe, signal: "SIGINT" }),
      /no console.*pty: true/,
    );
    // SIGTERM terminates the program's job.
    await portal.call("process_signal", { id: pipe, signal: "SIGTERM" });
    assertEquals((await portal.waitExit(pipe)).exit_code, 1);
    await portal.call("process_kill", { id: pty });
  },
);

windowsTest(
  "ConPTY backend: a program that exits at once gives all its output, then its exit code",
  async () => {
    let text = "";
    const exits: ExitInfo[] = [];
    let late = 0;
    const term = spawnPty({
      command: "cmd.exe",
      args: ["/d", "/c", "echo first& echo second& exit /b 5"],
      cwd: Deno.cwd(),
      env: {},
      cols: 80,
      rows: 24,
    }, {
      onData(_source, chunk) {
        if (exits.length > 0) late++;
        text += new TextDecoder().decode(chunk);
      },
      onExit: (info) => void exits.push(info),
    });
    assert(term.pid > 0);
    await waitFor("onExit", () => ({ exits, text }), { until: (seen) => seen.exits.length > 0 });
    assertEquals(exits, [{ code: 5, signal: null }]);
    assertMatch(text, /first[^]*second/);
    assertEquals(late, 0);
    // Nothing is left to do on an ended terminal, and saying so is not an error.
    await term.kill();
  },
);
