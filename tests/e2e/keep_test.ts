/**
 * `keep` and `name` at process_start, in one server: both show in
 * process_list and process_inspect; a name is unique among running
 * processes, free again once its process has ended, and checked at the door.
 * (Kept processes outliving their client: host_test.ts and http_test.ts.)
 * process_kill_all ends its client's own processes, kept ones included, and
 * leaves the kept ones of other clients and of earlier connections.
 */
import { type Json, Portal } from "../../dev/portal_client.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { posixTest } from "../helpers/platform.ts";
import { hostDir, portalTest } from "../helpers/portal.ts";
import { pidAlive } from "../helpers/processes.ts";

portalTest(
  "name and keep: shown by list and inspect, a name unique while it runs",
  async (portal) => {
    const calc = await portal.call("process_start", {
      command: "cat",
      name: "calc",
      keep: true,
    });
    assertEquals([calc.name, calc.keep], ["calc", true]);
    const plain = await portal.spawn("sleep", ["60"]);
    const { processes } = await portal.call("process_list");
    assertEquals(processes.map((p: Json) => [p.id, p.name, p.keep]), [
      [calc.id, "calc", true],
      [plain, null, false],
    ]);
    const inspected = await portal.call("process_inspect", { id: calc.id });
    assertEquals([inspected.name, inspected.keep], ["calc", true]);

    assertMatch(
      await portal.fail("process_start", { command: "cat", name: "calc" }),
      new RegExp(`The name "calc" is taken by process ${calc.id}, which is running`),
    );
    await portal.call("process_kill", { id: calc.id });
    const again = await portal.call("process_start", { command: "cat", name: "calc" });
    assertEquals([again.name, again.keep], ["calc", false]);

    for (const bad of ["", "42", "with space", "x".repeat(65), "a/b"]) {
      assertMatch(
        await portal.fail("process_start", { command: "cat", name: bad }),
        /^process_start: "name" must be 1 to 64 letters, digits, '\.', '_' or '-', and not only digits$/,
      );
    }
  },
);

posixTest(
  "process_kill_all ends its own client's processes, kept ones too; another client's kept ones run on",
  async () => {
    await using dir = await hostDir();
    const start = (portal: Portal, keep: boolean) =>
      portal.call("process_start", { command: "sleep", args: ["300"], keep });
    // An earlier connection's kept process: no client owns it any more.
    let earlier: Json;
    {
      await using gone = await Portal.start({ dir: dir.path });
      earlier = await start(gone, true);
    }
    await using first = await Portal.start({ dir: dir.path });
    await using second = await Portal.start({ dir: dir.path });
    const [firstKept, firstPlain] = [await start(first, true), await start(first, false)];
    const [secondKept, secondPlain] = [await start(second, true), await start(second, false)];

    const result = await second.call("process_kill_all");
    assertEquals(result.killed.sort(), [secondKept.id, secondPlain.id].sort());
    assertEquals(result.left_running.sort(), [earlier.id, firstKept.id].sort());
    assertEquals(result.failed, []);
    for (const p of [secondKept, secondPlain]) assert(!pidAlive(p.os_pid), `${p.id} is gone`);
    for (const p of [earlier, firstKept, firstPlain]) assert(pidAlive(p.os_pid), `${p.id} runs`);
    const status = async (portal: Portal, id: number) =>
      (await portal.call("process_inspect", { id })).status;
    assertEquals(await status(first, firstKept.id), "running");
    assertEquals(await status(second, earlier.id), "running");

    const again = await first.call("process_kill_all");
    assertEquals(again.killed.sort(), [firstKept.id, firstPlain.id].sort());
    assertEquals(again.left_running, [earlier.id]);
    // A kept process no client owns is ended one by one.
    await first.call("process_kill", { id: earlier.id });
    assert(!pidAlive(earlier.os_pid));
  },
);
