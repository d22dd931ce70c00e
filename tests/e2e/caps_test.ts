/**
 * Replies sized for a model: a waiting call's output keeps its head and tail
 * under max_chars and counts what it left out; max_chars is a hard cap on the
 * read tools too, even inside one record, and no reply nears the 10 MiB
 * message limit of the official SDK client.
 */
import type { Rec } from "../../dev/portal_client.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { sharedPortal } from "../helpers/portal.ts";

// Each test asserts only about its own processes: one server serves them all.
const { portalTest } = sharedPortal();

/** Characters `seq 1 1000000` prints: 9 of 2, 90 of 3, …, 900000 of 7, and "1000000\n". */
const SEQ_CHARS = 9 * 2 + 90 * 3 + 900 * 4 + 9000 * 5 + 90_000 * 6 + 900_000 * 7 + 8;

const text = (records: Rec[]) => records.map((r) => r.content).join("");

portalTest(
  "seq 1 1000000: head, marker and tail within the cap, on pipes and a PTY",
  async (portal) => {
    for (const pty of [false, true]) {
      const done = await portal.call("process_start", {
        command: "seq",
        args: ["1", "1000000"],
        pty,
        wait: "exit",
        wait_ms: 60_000,
      });
      const { id, output } = done;
      // The reply is as things stand once the wait ended: the program is no longer running.
      assertEquals(
        [done.reason, done.status, done.state, done.exit_code],
        ["exit", "exited", "exited", 0],
      );
      assert(output.length <= 16_000, `${output.length} characters`);
      assertEquals(done.truncated, true);
      assertMatch(output, /^1\n2\n3\n/);
      assertMatch(output, /\n999999\n1000000\n$/);
      const marker = /\n\[… (\d+) characters omitted; process_read has them …\]\n/.exec(output)!;
      assertEquals(Number(marker[1]), done.omitted_chars);
      assertEquals(output.length - marker[0].length + done.omitted_chars, SEQ_CHARS, `pty ${pty}`);
      // Everything counts as read, the omitted middle too.
      assertEquals((await portal.call("process_read_new", { id })).records, []);
    }
    // A small cap keeps the tail only.
    const small = await portal.call("process_start", {
      command: "seq",
      args: ["1", "1000"],
      wait: "exit",
      max_chars: 20,
    });
    assertEquals([small.output, small.omitted_chars], ["96\n997\n998\n999\n1000\n", 3873]);
  },
);

portalTest(
  "max_chars is a hard cap even inside one record; read_new stays exactly-once",
  async (portal) => {
    // One write of 3000 characters is one record on a pipe: a write of at most PIPE_BUF (4 KiB)
    // is atomic, where a PTY may hand it over in two pieces under load.
    const line = Array.from({ length: 3000 }, (_, i) => String.fromCharCode(97 + i % 26)).join("");
    const id = await portal.spawn("printf", [line]);
    await portal.waitExit(id);
    const all = await portal.call("process_read", { id, duration: 60_000 });
    assertEquals(all.records.length, 1);
    const pages: string[] = [];
    for (;;) {
      const page = await portal.call("process_read_new", { id, max_chars: 700 });
      if (page.records.length === 0) break;
      const got = text(page.records);
      assert(got.length <= 700, `${got.length} characters`);
      pages.push(got);
    }
    assertEquals(pages.map((p) => p.length), [700, 700, 700, 700, 200]);
    assertEquals(pages.join(""), line);
    // process_read keeps the newest characters.
    const newest = await portal.call("process_read", { id, duration: 60_000, max_chars: 500 });
    assertEquals([text(newest.records), newest.truncated], [line.slice(-500), true]);
  },
);

portalTest("no reply nears the SDK's 10 MiB limit, whatever the characters", async (portal) => {
  // A million control characters: each one is 6 bytes of JSON, and a reply holds it twice.
  const id = await portal.spawn("sh", ["-c", "head -c 1000000 /dev/zero | tr '\\0' '\\1'"]);
  await portal.waitExit(id);
  const read = await portal.call("process_read", { id, duration: 60_000, max_chars: 1_000_000 });
  const size = JSON.stringify(read).length;
  assert(size < 5 * 1024 * 1024, `${size} characters of JSON`);
  assertEquals(read.truncated, true);
  const fresh = await portal.call("process_read_new", { id, max_chars: 1_000_000 });
  assert(JSON.stringify(fresh).length < 5 * 1024 * 1024);
  assertEquals(fresh.truncated, true);
  // The connection lived: the server still answers.
  assertEquals((await portal.call("process_inspect", { id })).status, "exited");
});
