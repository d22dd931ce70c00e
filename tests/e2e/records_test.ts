import type { Portal, Rec } from "../../dev/portal_client.ts";
import { waitFor } from "../../dev/wait.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { queryRecords } from "../helpers/records_file.ts";
import { sharedPortal } from "../helpers/portal.ts";

// Each test asserts only about its own processes: one server serves them all.
const { portalTest } = sharedPortal();

const text = (records: Rec[]) => records.map((r) => r.content).join("");

/** Waits until everything process `id` has written so far is older than `windowMs`. */
function ageOut(portal: Portal, id: number, windowMs: number): Promise<string> {
  return waitFor(
    `the output of process ${id} to be older than ${windowMs} ms`,
    async () => text((await portal.call("process_read", { id, duration: windowMs })).records),
    { until: (recent) => recent === "" },
  );
}

portalTest("records keep both sources, in order, with increasing timestamps", async (portal) => {
  // After each output the program waits for a line, sent only once that output is
  // recorded: the order across the two pipes is a fact of the exchange, not of scheduling.
  const id = await portal.spawn("sh", [
    "-c",
    "echo out1; read a; echo err1 >&2; read b; echo out2; read line; echo got:$line",
  ]);
  for (const [output, reply] of [["out1", "\n"], ["err1", "\n"], ["out2", "hello\n"]]) {
    await portal.readUntil(id, (t) => t.includes(output));
    await portal.call("process_write", { id, content: reply, wait: "none" });
  }
  await portal.waitExit(id);
  const { records } = await portal.call("process_read", { id, duration: 60, unit: "s" });
  assertEquals(
    records.map((r: Rec) => [r.source, r.content]),
    [["stdout", "out1\n"], ["stderr", "err1\n"], ["stdout", "out2\n"], ["stdout", "got:hello\n"]],
  );
  const stdin = await portal.call("process_read", {
    id,
    source: "stdin",
    duration: 60,
    unit: "s",
  });
  assertEquals(stdin.records.map((r: Rec) => [r.source, r.content]), [
    ["stdin", "\n"],
    ["stdin", "\n"],
    ["stdin", "hello\n"],
  ]);
  const all = [...records, ...stdin.records].map((r: Rec) => r.timestamp).sort((a, b) => a - b);
  assertEquals(new Set(all).size, all.length, "timestamps are distinct");
  for (let i = 1; i < records.length; i++) {
    assert(records[i].timestamp > records[i - 1].timestamp, "timestamps increase");
  }
  const info = await portal.call("process_inspect", { id });
  assertEquals([info.stdout_count, info.stderr_count, info.stdin_count, info.io_count], [
    3,
    1,
    3,
    7,
  ]);
  assertEquals([info.exit_code, info.exit_signal], [0, null]);
});

portalTest(
  "escape sequences are stripped, the rest kept as written, bad UTF-8 replaced",
  async (portal) => {
    const id = await portal.spawn("printf", [
      "\\033[1;31mred\\033[0m \\033]0;title\\007plain\\033(B \\377\\376ok\\r\\n",
    ]);
    await portal.waitExit(id);
    const { records } = await portal.call("process_read", { id, duration: 60, unit: "s" });
    assertEquals(text(records), "red plain \ufffd\ufffdok\r\n");
  },
);

portalTest(
  "read_new: per-source cursors, each record exactly once, clear resets",
  async (portal) => {
    const id = await portal.spawn("sh", [
      "-c",
      'while read line; do echo "o:$line"; echo "e:$line" >&2; done',
    ]);
    await portal.call("process_write", { id, content: "1\n", wait: "none" });
    const out1 = await portal.readUntil(id, (t) => t.includes("o:1"), { source: "stdout" });
    assertEquals(out1, "o:1\n");
    // Reading stdout did not consume stderr.
    const err1 = await portal.readUntil(id, (t) => t.includes("e:1"), { source: "stderr" });
    assertEquals(err1, "e:1\n");
    assertEquals((await portal.call("process_read_new", { id })).records, []);

    await portal.call("process_write", { id, content: "2\n", wait: "none" });
    const both = await portal.readUntil(id, (t) => t.includes("o:2") && t.includes("e:2"));
    assertEquals(both.length, "o:2\ne:2\n".length, "only the new records, once each");
    // A time-window read neither consumes nor depends on the cursors.
    const window = await portal.call("process_read", { id, duration: 60, unit: "s" });
    assertEquals(window.records.length, 4);
    assertEquals((await portal.call("process_read_new", { id })).records, []);

    const cleared = await portal.call("process_clear", { id });
    assertEquals(cleared, { id, cleared: 6 });
    assertEquals((await portal.call("process_read", { id, duration: 60, unit: "s" })).records, []);
    await portal.call("process_write", { id, content: "3\n", wait: "none" });
    assertEquals(
      await portal.readUntil(id, (t) => t.includes("o:3") && t.includes("e:3")),
      "o:3\ne:3\n",
    );
    const info = await portal.call("process_inspect", { id });
    assertEquals([info.stdout_count, info.stderr_count, info.stdin_count], [1, 1, 1]);
  },
);

portalTest("read: the time window (duration + unit) selects recent records", async (portal) => {
  const id = await portal.spawn("sh", ["-c", "echo early; read x; echo late"]);
  await portal.readUntil(id, (t) => t.includes("early"));
  await ageOut(portal, id, 500);
  await portal.call("process_write", { id, content: "\n", wait: "none" });
  await portal.waitExit(id);
  const recent = await portal.call("process_read", { id, duration: 500, unit: "ms" });
  assertEquals(text(recent.records), "late\n");
  for (const [duration, unit] of [[60, "s"], [60e3, "ms"], [60e6, "us"], [60e9, "ns"]]) {
    const all = await portal.call("process_read", { id, duration, unit });
    assertEquals(text(all.records), "early\nlate\n", `${duration} ${unit}`);
  }
});

portalTest("max_chars pages read_new forward and keeps read's newest records", async (portal) => {
  // One record per line: the program prints the next line only when told, after the last is in.
  const id = await portal.spawn("sh", ["-c", "for i in 1 2 3 4 5; do echo line$i; read x; done"]);
  for (let i = 1; i <= 5; i++) {
    await waitFor(`line${i}`, () => portal.call("process_read", { id, duration: 60, unit: "s" }), {
      until: (read) => text(read.records).includes(`line${i}\n`),
    });
    await portal.call("process_write", { id, content: "\n", wait: "none" });
  }
  await portal.waitExit(id);
  const seen: string[] = [];
  for (;;) {
    const page = await portal.call("process_read_new", { id, max_chars: 12 });
    seen.push(...page.records.map((r: Rec) => r.content));
    assert(page.records.length > 0 || !page.truncated);
    if (!page.truncated) break;
  }
  assertEquals(seen.join(""), "line1\nline2\nline3\nline4\nline5\n");
  const newest = await portal.call("process_read", {
    id,
    duration: 60,
    unit: "s",
    max_chars: 12,
  });
  assertEquals([text(newest.records), newest.truncated], ["line4\nline5\n", true]);
});

portalTest(
  "a child that writes 50 MB fast and exits has every byte in the records",
  async (portal) => {
    const lines = 5_000_000; // 10 bytes each
    const id = await portal.spawn("python3", [
      "-c",
      `import sys\nsys.stdout.write("".join(["%09d\\n" % i for i in range(${lines})]))`,
    ]);
    const info = await portal.waitExit(id, 60_000);
    assertEquals([info.status, info.exit_code], ["exited", 0]);
    const rows = queryRecords<{ content: Uint8Array; records: number }>(
      portal.dbPath,
      "SELECT content, records FROM process_records WHERE process_id = ? AND source = 'stdout' ORDER BY seq",
      id,
    );
    assertEquals(rows.reduce((sum, r) => sum + r.records, 0), info.stdout_count);
    const decoder = new TextDecoder();
    const all = rows.map((r) => decoder.decode(r.content, { stream: true })).join("");
    assertEquals(all.length, lines * 10);
    let expected = "";
    for (let i = lines - 3; i < lines; i++) expected += String(i).padStart(9, "0") + "\n";
    assertEquals(all.slice(-30), expected);
    assertEquals(all.slice(0, 20), "000000000\n000000001\n");
  },
);

portalTest("read: for an ended process the window ends where the process ended", async (portal) => {
  const id = await portal.spawn("sh", ["-c", "echo first; read x; echo last"]);
  await portal.readUntil(id, (t) => t.includes("first"));
  await ageOut(portal, id, 700);
  await portal.call("process_write", { id, content: "\n", wait: "none" });
  const { ended_at } = await portal.waitExit(id);
  // Let the end recede past the window: a window ending now would hold nothing.
  await waitFor("the end to be more than 700 ms ago", () => Date.now() - Date.parse(ended_at), {
    until: (age) => age > 700,
  });
  const { records } = await portal.call("process_read", { id, duration: 700, unit: "ms" });
  assertEquals(text(records), "last\n");
});
