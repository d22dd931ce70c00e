/**
 * A flood of output is read at a slower pace while the agent works with
 * another process (src/core/process/attention.ts): the core asks for it only
 * then, the backends pause their reads when asked (the program waits on its
 * full terminal or pipe), and nothing is lost. The pace is checked as a
 * lower bound on a flood's time (zeros, which a terminal passes as they are).
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { posixTest } from "../helpers/platform.ts";
import { waitFor } from "../../dev/wait.ts";
import { PACED_FLOOD_BYTES_PER_MS } from "../../src/limits.ts";
import { spawnPipe, spawnPty } from "../../src/terminal/backends.ts";
import { ProcessManager } from "../../src/core/process/manager.ts";
import { ProcessPool } from "../../src/core/process/pool.ts";
import { portalPlace } from "../../src/core/policy/sandbox_rules.ts";
import { RecordStore } from "../../src/core/store/record_store.ts";

interface Chunk {
  at: number;
  bytes: number;
}

/** Runs `sh -c script` to its end with `paceFlood` answering `paced`: its chunks, and how often it asked. */
async function run(pty: boolean, paced: boolean, script: string) {
  const chunks: Chunk[] = [];
  let asked = 0;
  let exited = false;
  (pty ? spawnPty : spawnPipe)({
    command: "sh",
    args: ["-c", script],
    cwd: "/",
    env: {},
    cols: 80,
    rows: 24,
  }, {
    onData: (_, chunk) => chunks.push({ at: performance.now(), bytes: chunk.length }),
    onExit: () => exited = true,
    paceFlood: () => {
      asked++;
      return paced;
    },
  });
  await waitFor("the program to exit", () => exited, { timeoutMs: 30_000 });
  const bytes = chunks.reduce((sum, c) => sum + c.bytes, 0);
  return { chunks, asked, bytes };
}

/** Milliseconds from the first chunk to the last. */
const span = (chunks: Chunk[]) => chunks[chunks.length - 1].at - chunks[0].at;

const flood = (bytes: number) => `head -c ${bytes} /dev/zero`;
const chatty = "for i in 1 2 3 4 5 6 7 8 9 10; do echo line $i; sleep 0.01; done";

for (
  const { backend, bytes, slack } of [
    // What the kernel holds unread when the program ends is read at once: a PTY's 68 KiB.
    { backend: "PTY", bytes: 4_000_000, slack: 128 * 1024 },
    // A grown pipe (1 MiB), the stream's read-ahead (1 MiB) and what is unread at its exit.
    { backend: "pipe", bytes: 16_000_000, slack: 3 << 20 },
  ]
) {
  posixTest(
    `a paced ${backend} flood is read at the paced rate at most, and loses nothing`,
    async () => {
      const { chunks, asked, bytes: got } = await run(backend === "PTY", true, flood(bytes));
      assertEquals(got, bytes);
      assert(asked > 0, "never asked");
      // A lower bound, which a busy machine only lengthens; unpaced this takes a tenth of it.
      // A timer may fire a little before its time on the clock read here: a tenth of slack.
      const least = ((bytes - slack) / PACED_FLOOD_BYTES_PER_MS) * 0.9;
      const took = span(chunks);
      assert(
        took >= least,
        `${got} bytes came in ${took.toFixed(0)} ms, paced: at least ${least.toFixed(0)}`,
      );
    },
  );
}

posixTest(
  "an unpaced flood is asked about but read on, and a chatty program is never asked",
  async () => {
    for (const pty of [true, false]) {
      const unpaced = await run(pty, false, flood(4_000_000));
      assertEquals(unpaced.bytes, 4_000_000);
      assert(unpaced.asked > 0, `${pty ? "PTY" : "pipes"}: a flood was not asked about`);
      const lines = await run(pty, true, chatty);
      assertEquals(lines.asked, 0, `${pty ? "PTY" : "pipes"}: a chatty program was asked`);
      assert(lines.bytes > 0);
    }
  },
);

posixTest("a flood is paced while the agent's latest call names another process", async () => {
  const pool = new ProcessPool(new RecordStore(":memory:"), portalPlace({}, ":memory:"));
  const manager = new ProcessManager(pool);
  const other = new ProcessManager(pool); // A second client: the server's CPU is shared.
  try {
    const flooding = await manager.start({ command: "sleep", args: ["30"] });
    const paced = () => pool.get(flooding.id)!.process.paceFlood();
    assertEquals(paced(), false, "just started: the agent works with it");
    const worked = await manager.start({ command: "cat", pty: true });
    assertEquals(paced(), true, "another process was started since");
    manager.inspect(flooding.id);
    assertEquals(paced(), false, "inspected: the agent looks at it");
    manager.list(); // Names no process: changes nothing.
    assertEquals(paced(), false);
    await manager.write(worked.id, { content: "hi\n" });
    assertEquals(paced(), true, "a write to another process");
    await manager.readNew(flooding.id, {});
    assertEquals(paced(), false, "its output read");
    await other.start({ command: "sleep", args: ["30"] });
    assertEquals(paced(), true, "another client's call counts too");
    // A call that waits on it (this client's, while the other works elsewhere) reads it on.
    const waiting = manager.readNew(flooding.id, { wait: "exit", wait_ms: 300 });
    await other.start({ command: "sleep", args: ["30"] });
    assertEquals(paced(), false, "a call waits on its output");
    assertEquals((await waiting).reason, "timeout");
    assertEquals(paced(), true, "the wait is over, and the latest call named another process");
    // A person who took over its keyboard on a watch page works with it.
    const page = {};
    const { watched } = pool.get(flooding.id)!.process;
    watched.takeOver(page);
    assertEquals(paced(), false, "a person holds its keyboard");
    watched.giveBack(page);
    assertEquals(paced(), true);
  } finally {
    await pool.leave(other.session);
    await manager.shutdown();
  }
});
