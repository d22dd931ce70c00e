/**
 * Run as a process of its own (`deno run -A tests/helpers/pty_fd_leak.ts`):
 * starts programs on PTYs through the backend, one after the other, waits for
 * each to end, and prints how many fds this process had open before and
 * after, as JSON; before is after a first program, which opens what the
 * backend keeps for all (its readiness loop). Its own process because
 * `deno test --parallel` runs other test files in the test's process, whose
 * fds come and go meanwhile.
 *
 * @module
 */
import { waitFor } from "../../dev/wait.ts";
import { spawnPty } from "../../src/terminal/backends.ts";

const openFds = () => [...Deno.readDirSync("/proc/self/fd")].length;

/** Runs `command` on a PTY until it ends. */
async function runOnPty(command: string, args: string[]): Promise<void> {
  let ended = false;
  const env = Deno.env.toObject();
  spawnPty({ command, args, cwd: "/tmp", env, cols: 80, rows: 24 }, {
    onData() {},
    onExit() {
      ended = true;
    },
  });
  await waitFor(`${command} to end`, () => ended);
}

await runOnPty("true", []);
const before = openFds();
await runOnPty("sh", ["-c", "ls -1 /proc/$$/fd"]);
await runOnPty("bash", ["-c", 'yes | head -1; echo "pipe=${PIPESTATUS[0]}"']);
console.log(JSON.stringify({ before, after: openFds() }));
