/**
 * Durability: a server SIGKILLed in the middle of a flood leaves a database
 * that opens cleanly and holds every line up to its last commit (how recent
 * that is, bench/durability.ts measures); a full disk is a clear error while
 * programs keep running, and writing resumes once there is room.
 */
import { killMidFlood } from "../../dev/kill_mid_flood.ts";
import { Portal } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { pidAlive } from "../helpers/processes.ts";
import { posixTest } from "../helpers/platform.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

posixTest(
  "SIGKILL mid-flood: the database opens cleanly and holds every line up to its last commit",
  async () => {
    await using dir = await tempDir();
    const db = `${dir.path}/records.db`;
    const after = await killMidFlood(db, 300);
    console.log(`the last committed line was written ${after.lagMs} ms before the kill`);
    assertEquals([after.integrity, after.gap], ["ok", -1], "every line up to the last, once");
    assert(after.lines > 0, "output before the kill was committed");
    // How long before the kill that line was written is a figure of bench/durability.ts (it may
    // even be a few ms after the clock was read for the kill, before the signal landed).
    // A new server opens it as it is, its records kept, and goes on after them.
    await using next = await Portal.start({ args: ["--db", db] });
    assertEquals(await next.spawn("true"), 2);
  },
);

const ROOT = Deno.uid() === 0;

posixTest(
  `${
    ROOT ? "" : "[skipped: needs root to mount a tmpfs] "
  }a full disk: a clear error, programs keep running, the server stays up, and writing resumes once there is room`,
  async () => {
    if (!ROOT) return;
    await using dir = await tempDir();
    const mount = (args: string[]) =>
      new Deno.Command(args[0], { args: args.slice(1) }).outputSync();
    assert(mount(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir.path]).success, "mount");
    try {
      await using portal = await Portal.start({
        args: ["--db", `${dir.path}/records.db`],
        captureStderr: true,
      });
      const flood = await portal.spawn("python3", [
        "-c",
        "import os, time\ni = 0\nwhile True:\n  os.write(1, b'%09d\\n' % i * 100)\n" +
        "  i += 1\n  time.sleep(0.002)",
      ]);
      const cat = await portal.spawn("cat");
      await portal.readUntil(flood, (t) => t.length > 0);
      // Fill what is left of the disk.
      mount(["dd", "if=/dev/zero", `of=${dir.path}/filler`, "bs=64k"]);
      const refused = await waitFor("a write to be refused", async () => {
        const result = await portal.client.callTool({
          name: "process_write",
          arguments: { id: cat, content: "typed\n", wait: "none" },
        }) as Json;
        return result.isError ? result.content[0].text as string : "";
      }, { until: (text) => text !== "" });
      assertMatch(
        refused,
        new RegExp(
          `^Cannot write the records database ${dir.path}/records.db: database or disk is full ` +
            "\\(since .*\\)\\. Programs keep running; .*Free space on that disk",
        ),
      );
      assertMatch(
        await portal.fail("process_start", { command: "true" }),
        /database or disk is full/,
      );
      // The programs run on, their new output is read from memory, the server answers.
      const info = await portal.call("process_inspect", { id: flood });
      assert(info.status === "running" && pidAlive(info.os_pid), JSON.stringify(info));
      await portal.readUntil(flood, (t) => t.length > 0); // new output, held in memory
      assertEquals((await portal.call("process_list")).processes.length, 2);
      assertMatch(portal.stderr, /Cannot write the records database/);
      // Room again: the next commit goes through, and everything works as before.
      await Deno.remove(`${dir.path}/filler`);
      await waitFor("writes to be accepted again", async () => {
        const result = await portal.client.callTool({
          name: "process_write",
          arguments: { id: cat, content: "again\n", wait: "none" },
        }) as Json;
        return !result.isError;
      }, { intervalMs: 100 });
      await portal.readUntil(cat, (t) => t.includes("again"));
      await waitFor("the server to say so", () => portal.stderr, {
        until: (text) => text.includes("The records database is written again."),
      });
      await portal.call("process_kill", { id: flood });
      const started = await portal.spawn("echo", ["after"]);
      await portal.readUntil(started, (t) => t.includes("after"));
    } finally {
      mount(["umount", "-l", dir.path]);
    }
  },
);
