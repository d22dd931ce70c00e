/**
 * The page process_read returns, on a real (in-memory) record store: the
 * records of a time window, the newest kept within `max_chars` and the
 * reply's bytes, a cut record cut at its start (whole bytes in base64).
 */
import { Buffer } from "node:buffer";
import { REPLY_OUTPUT_BYTES } from "../../src/limits.ts";
import { newestPage } from "../../src/core/output/newest_page.ts";
import { jsonBytes } from "../../src/core/output/reply_size.ts";
import { RecordStore } from "../../src/core/store/record_store.ts";
import type { Source } from "../../src/core/model/schema.ts";
import { assert, assertEquals } from "../helpers/assert.ts";

/** A store holding `records` of process 1, record i stamped at 10·(i + 1). */
function storeOf(records: [Source, string | Uint8Array][]): RecordStore {
  const store = new RecordStore(":memory:", { maxOutputBytes: 0 });
  records.forEach(([source, text], i) => {
    const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
    store.append(1, { seq: i + 1, timestamp: 10 * (i + 1), source, bytes });
  });
  return store;
}

const BOTH: Source[] = ["stdout", "stderr"];
const contents = (page: { records: { content: string }[] }) => page.records.map((r) => r.content);

Deno.test("newest page: the records of the window, of the sources asked for, oldest first", () => {
  const store = storeOf([["stdout", "a\n"], ["stdin", "x\n"], ["stderr", "b\n"], [
    "stdout",
    "c\n",
  ]]);
  const q = { sources: BOTH, maxChars: 100, dropCR: false };
  assertEquals(newestPage(store, 1, { ...q, sinceTimestamp: 0 }), {
    records: [
      { seq: 1, timestamp: 10, source: "stdout", content: "a\n" },
      { seq: 3, timestamp: 30, source: "stderr", content: "b\n" },
      { seq: 4, timestamp: 40, source: "stdout", content: "c\n" },
    ],
    complete: true,
  });
  assertEquals(contents(newestPage(store, 1, { ...q, sinceTimestamp: 25 })), ["b\n", "c\n"]);
  const all: Source[] = ["stdin", ...BOTH];
  assertEquals(contents(newestPage(store, 1, { ...q, sources: all, sinceTimestamp: 20 })), [
    "x\n",
    "b\n",
    "c\n",
  ]);
  store.close();
});

Deno.test("newest page: past max_chars the newest win, the oldest kept is cut at its start", () => {
  const store = storeOf([["stdout", "first\n"], ["stdout", "second\n"], ["stdout", "third\n"]]);
  const page = newestPage(store, 1, {
    sources: BOTH,
    sinceTimestamp: 0,
    maxChars: 10,
    dropCR: false,
  });
  assertEquals(contents(page), ["ond\n", "third\n"]);
  assertEquals(page.complete, false);
  // A cut never leaves half of a surrogate pair.
  const emoji = storeOf([["stdout", "🙂🙂🙂"]]);
  const q = { sources: BOTH, sinceTimestamp: 0, maxChars: 3, dropCR: false };
  assertEquals(contents(newestPage(emoji, 1, q)), ["🙂"]);
  store.close();
  emoji.close();
});

Deno.test("newest page: in base64 a cut record keeps its last whole bytes", () => {
  const bytes = Uint8Array.from({ length: 30 }, (_, i) => i);
  const store = storeOf([["stdout", bytes]]);
  const page = newestPage(store, 1, {
    sources: BOTH,
    sinceTimestamp: 0,
    maxChars: 16,
    dropCR: false,
    encoding: "base64",
  });
  // 16 base64 characters are 12 bytes: the last 12.
  assertEquals(contents(page), [Buffer.from(bytes.subarray(18)).toString("base64")]);
  assertEquals(page.complete, false);
  store.close();
});

Deno.test("newest page: a record past the reply's byte budget is cut to fit it", () => {
  // Quotes cost two bytes of JSON each: max_chars alone would let the reply grow past the budget.
  const store = storeOf([["stdout", '"'.repeat(REPLY_OUTPUT_BYTES)]]);
  const page = newestPage(store, 1, {
    sources: BOTH,
    sinceTimestamp: 0,
    maxChars: REPLY_OUTPUT_BYTES,
    dropCR: false,
  });
  const [content] = contents(page);
  assert(content.length > 0 && jsonBytes(content) <= REPLY_OUTPUT_BYTES, `${content.length}`);
  assertEquals(page.complete, false);
  store.close();
});
