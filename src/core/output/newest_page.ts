/**
 * The page `process_read` returns: the records of a time window, the newest
 * kept when `max_chars` or the reply's bytes run out (the oldest record kept
 * may be cut at its start). With `encoding: "base64"` a cut keeps whole
 * bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RecordStore } from "../store/record_store.ts";
 * import { newestPage } from "./newest_page.ts";
 *
 * const store = new RecordStore(":memory:");
 * const bytes = (s: string) => new TextEncoder().encode(s);
 * store.append(1, { seq: 1, timestamp: 10, source: "stdout", bytes: bytes("old\n") });
 * store.append(1, { seq: 2, timestamp: 20, source: "stdout", bytes: bytes("newer\n") });
 * const q = { sources: ["stdout" as const], sinceTimestamp: 0, dropCR: false };
 * const page = newestPage(store, 1, { ...q, maxChars: 8 });
 * assert.deepEqual(page.records.map((r) => r.content), ["d\n", "newer\n"]);
 * assert.equal(page.complete, false);
 * store.close();
 * ```
 * @module
 */
import { Buffer } from "node:buffer";
import { REPLY_OUTPUT_BYTES } from "../../limits.ts";
import type { RecordStore } from "../store/record_store.ts";
import type { Page, RecordQuery } from "../store/records.ts";
import { fitEnd, jsonBytes, RECORD_OVERHEAD_BYTES } from "./reply_size.ts";

/**
 * Records of the time window `q` selects, newest kept when `maxChars` or the
 * byte budget is reached (the oldest record kept may be cut at its start).
 */
export function newestPage(
  store: RecordStore,
  processId: number,
  q:
    & Required<Pick<RecordQuery, "sources" | "sinceTimestamp" | "maxChars" | "dropCR">>
    & Pick<RecordQuery, "encoding">,
): Page {
  const { records, complete } = store.query(processId, { ...q, newest: true });
  let roomChars = q.maxChars;
  let roomBytes = REPLY_OUTPUT_BYTES;
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i];
    const cost = jsonBytes(record.content) + RECORD_OVERHEAD_BYTES;
    if (record.content.length <= roomChars && cost <= roomBytes) {
      roomChars -= record.content.length;
      roomBytes -= cost;
      continue;
    }
    const content = q.encoding === "base64"
      ? lastBytesBase64(record.content, Math.min(roomChars, roomBytes))
      : fitEnd(record.content, roomChars, roomBytes);
    const kept = content === "" ? records.slice(i + 1) : records.slice(i);
    if (content !== "") kept[0] = { ...record, content };
    return { records: kept.length > 0 ? kept : [{ ...record, content }], complete: false };
  }
  return { records, complete };
}

/** The base64 of the last bytes of `base64`'s bytes that fit in `chars` characters. */
function lastBytesBase64(base64: string, chars: number): string {
  const bytes = Buffer.from(base64, "base64");
  const keep = Math.floor(Math.max(0, chars) / 4) * 3;
  return keep === 0 ? "" : bytes.subarray(Math.max(0, bytes.length - keep)).toString("base64");
}
