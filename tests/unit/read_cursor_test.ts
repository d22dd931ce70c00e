/**
 * The read cursor of process_read_new on a real (in-memory) record store:
 * pages of records and a waiting call's one text, every character returned
 * exactly once, whatever the mix of calls.
 */
import { RecordStore } from "../../src/core/store/record_store.ts";
import { ReadCursor } from "../../src/core/output/read_cursor.ts";
import type { OutputSource } from "../../src/terminal/terminal.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { Random } from "../../dev/random.ts";

const BOTH: OutputSource[] = ["stdout", "stderr"];

/** A store holding `records` of process 1, and a cursor over it. */
function cursorOver(records: [OutputSource, string][]) {
  const store = new RecordStore(":memory:", { maxOutputBytes: 0 });
  records.forEach(([source, text], i) => {
    const bytes = new TextEncoder().encode(text);
    store.append(1, { seq: i + 1, timestamp: i + 1, source, bytes });
  });
  return { store, cursor: new ReadCursor(store, 1, { dropCR: false }), end: records.length };
}

const contents = (page: { records: { content: string }[] }) => page.records.map((r) => r.content);

Deno.test("read cursor: the text of unread output that fits is all of it, and moves the cursor to the end", () => {
  const { store, cursor, end } = cursorOver([["stdout", "one\n"], ["stderr", "two\n"]]);
  assertEquals(cursor.text(BOTH, 100, end), { text: "one\ntwo\n", omitted: 0 });
  assertEquals(cursor.text(BOTH, 100, end), { text: "", omitted: 0 });
  assertEquals(cursor.page(BOTH, 100).records, []);
  store.close();
});

Deno.test("read cursor: a long text keeps its head and tail, and counts what it left out", () => {
  const lines = Array.from({ length: 100 }, (_, i) => `line ${String(i).padStart(3, "0")}\n`);
  const { store, cursor, end } = cursorOver(lines.map((line) => ["stdout", line]));
  const whole = lines.join("");
  const { text, omitted } = cursor.text(BOTH, 300, end);
  assert(text.length <= 300, `${text.length} characters`);
  const [head, tail] = text.split(/\n\[… \d+ characters omitted; process_read has them …\]\n/);
  assert(whole.startsWith(head) && whole.endsWith(tail));
  assertEquals(head.length + omitted + tail.length, whole.length);
  assertMatch(text, new RegExp(`\\[… ${omitted} characters omitted`));
  assertEquals(cursor.page(BOTH, 100).records, []);
  store.close();
});

Deno.test("read cursor: after a page cut inside a record, a text of the rest that fits is whole", () => {
  // The first page stops inside the long record; the rest of it, and what follows, fit.
  const { store, cursor, end } = cursorOver([["stdout", "x".repeat(450)], ["stdout", "end\n"]]);
  assertEquals(contents(cursor.page(BOTH, 300)), ["x".repeat(300)]);
  assertEquals(cursor.text(BOTH, 300, end), { text: "x".repeat(150) + "end\n", omitted: 0 });
  store.close();
});

Deno.test("read cursor: peek shows the end of the unread output and moves nothing", () => {
  const { store, cursor, end } = cursorOver([["stdout", "abc"], ["stderr", "def"]]);
  assertEquals(cursor.peek(BOTH, 4), "cdef");
  assertEquals(cursor.peek(["stdout"], 10), "abc");
  assertEquals(cursor.text(BOTH, 100, end).text, "abcdef");
  store.close();
});

Deno.test("read cursor: reading one source on its own, then both, returns nothing twice", () => {
  const { store, cursor, end } = cursorOver([
    ["stdout", "out1 "],
    ["stderr", "err2 "],
    ["stdout", "out3 "],
    ["stderr", "err4 "],
  ]);
  assertEquals(contents(cursor.page(["stderr"], 100)), ["err2 ", "err4 "]);
  assertEquals(contents(cursor.page(BOTH, 5)), ["out1 "]);
  assertEquals(contents(cursor.page(BOTH, 100)), ["out3 "]);
  assertEquals(cursor.text(BOTH, 100, end).text, "");
  store.close();
});

Deno.test("read cursor: random pages and texts of random sources return each character once", () => {
  const pieces = ["a", "line\n", "é", "🙂", "\r\n", "\x1b[1m", "x".repeat(300)];
  for (const seed of [1, 2, 3]) {
    const random = new Random(seed);
    const dropCR = random.chance(0.5);
    const store = new RecordStore(":memory:", { maxOutputBytes: 0 });
    const cursor = new ReadCursor(store, 1, { dropCR });
    const got: Record<OutputSource, string> = { stdout: "", stderr: "" };
    const take = (records: { source: string; content: string }[]) => {
      for (const r of records) got[r.source as OutputSource] += r.content;
    };
    let seq = 0;
    for (let step = 0; step < 200; step++) {
      for (let n = random.int(4); n > 0; n--) {
        let text = "";
        for (let k = 1 + random.int(4); k > 0; k--) text += random.pick(pieces);
        seq++;
        const bytes = new TextEncoder().encode(text);
        store.append(1, { seq, timestamp: seq, source: random.pick(BOTH), bytes });
      }
      const sources = random.pick<OutputSource[]>([BOTH, ["stdout"], ["stderr"]]);
      if (sources.length === 1 && random.chance(0.3)) {
        // A text of one source, large enough that nothing is left out.
        got[sources[0]] += cursor.text(sources, 1_000_000, seq).text;
      } else take(cursor.page(sources, 1 + random.int(400)).records);
    }
    for (let page = cursor.page(BOTH, 1000); page.records.length > 0;) {
      take(page.records);
      page = cursor.page(BOTH, 1000);
    }
    for (const source of BOTH) {
      const { records } = store.query(1, { sources: [source], dropCR });
      assertEquals(got[source], records.map((r) => r.content).join(""), `seed ${seed}, ${source}`);
    }
    store.close();
  }
});
