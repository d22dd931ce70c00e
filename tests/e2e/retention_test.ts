import type { Portal, Rec } from "../../dev/portal_client.ts";
import { waitFor } from "../../dev/wait.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { queryRecords } from "../helpers/records_file.ts";
import { sharedPortal } from "../helpers/portal.ts";

/** A small cap, so a few seconds of output run past it many times. */
const CAP = 1 << 20;
const LINES = 3_000_000; // 10 bytes each: 30 MB
// One capped server for both tests, each reading only its own process's records. The
// database file's size is checked by the first, before the second adds to it.
const { portalTest } = sharedPortal({ env: { PORTAL_MAX_OUTPUT_BYTES: String(CAP) } });
const line = (i: number) => String(i).padStart(9, "0") + "\n";

/** Writes LINES numbered lines as fast as it can: every byte's place in the stream is known. */
const FLOOD = [
  "-c",
  `import sys\nfor b in range(${
    LINES / 10_000
  }):\n  sys.stdout.write("".join("%09d\\n" % i for i in range(b * 10000, (b + 1) * 10000)))`,
];

function stored(portal: Portal, id: number): number {
  return queryRecords<{ n: number }>(
    portal.dbPath,
    "SELECT coalesce(sum(length(content)), 0) AS n FROM process_records WHERE process_id = ?",
    id,
  )[0].n;
}

portalTest(
  "retention: past PORTAL_MAX_OUTPUT_BYTES the oldest output goes; read_new returns every byte once or counts it in dropped_bytes",
  async (portal) => {
    const id = await portal.spawn("python3", FLOOD);
    // Read while it floods: each page is [dropped_bytes lost][records], in stream order.
    let offset = 0;
    let dropped = 0;
    let pages = 0;
    const check = (page: { records: Rec[]; dropped_bytes: number }) => {
      offset += page.dropped_bytes;
      dropped += page.dropped_bytes;
      for (const { content } of page.records) {
        const first = Math.floor(offset / 10);
        let expected = "";
        for (let i = first; expected.length < content.length + 10; i++) expected += line(i);
        const at = offset - first * 10;
        assertEquals(content, expected.slice(at, at + content.length), `at byte ${offset}`);
        offset += content.length;
      }
      pages++;
    };
    const info = await waitFor("the flood to end, reading as it goes", async () => {
      check(await portal.call("process_read_new", { id }));
      return await portal.call("process_inspect", { id });
    }, { until: (p) => p.status !== "running", timeoutMs: 60_000, intervalMs: 5 });
    assertEquals(info.exit_code, 0);
    for (;;) {
      const page = await portal.call("process_read_new", { id });
      check(page);
      if (!page.truncated) break;
    }
    assertEquals(offset, LINES * 10, "every byte was returned or counted as dropped");
    assert(dropped > 0 && dropped < LINES * 10, `dropped ${dropped}`);
    // The store and its file stay near the cap.
    const kept = stored(portal, id);
    assert(kept <= CAP && kept > CAP / 2, `${kept} bytes stored`);
    const file = Deno.statSync(portal.dbPath).size;
    assert(file < 6 * CAP, `database file of ${file} bytes`);

    // A window reaching back past the oldest record says how much is gone before it.
    const window = await portal.call("process_read", { id, duration: 600, unit: "s" });
    assertEquals(window.dropped_bytes, LINES * 10 - kept);
    assert(pages > 1);
  },
);

portalTest("retention: a PTY's screen is exact after a flood past the cap", async (portal) => {
  const id = await portal.spawn("python3", [
    "-c",
    `import sys\nfor i in range(300000): sys.stdout.write("%09d\\n" % i)\nsys.stdout.write("\\x1b[1mdone\\x1b[0m")`,
  ], { pty: true });
  await portal.waitExit(id, 60_000);
  const screen = await portal.call("process_screen", { id, scrollback: 3 });
  assertEquals(screen.lines.slice(-2), ["000299999", "done"]);
  assertEquals(screen.scrollback, ["000299974", "000299975", "000299976"]);
  assert(stored(portal, id) <= CAP);
  const { records, dropped_bytes } = await portal.call("process_read", {
    id,
    duration: 600,
    unit: "s",
    max_chars: 14,
  });
  assertEquals(records.map((r: Rec) => r.content).join("").slice(-14), "000299999\ndone");
  assert(dropped_bytes > 0);
});
