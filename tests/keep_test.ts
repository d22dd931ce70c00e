/**
 * `keep` and `name` at process_start, in one server: both show in
 * process_list and process_inspect; a name is unique among running
 * processes, free again once its process has ended, and checked at the door.
 * (Kept processes outliving their client: host_test.ts and http_test.ts.)
 */
import type { Json } from "../dev/portal_client.ts";
import { assertEquals, assertMatch } from "./helpers/assert.ts";
import { portalTest } from "./helpers/portal.ts";

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
