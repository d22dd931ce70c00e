/**
 * What the output of a reply may cost: `max_chars` characters, and at most
 * `REPLY_OUTPUT_BYTES` (limits.ts) of JSON, far from the 10 MiB message limit
 * of the official SDK client. Shared by the read cursor and the newest page.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fitEnd, jsonBytes } from "./reply_size.ts";
 *
 * assert.equal(jsonBytes('a"b'), 6);
 * assert.equal(fitEnd("hello world", 5, 100), "world");
 * // Never half of a surrogate pair: one character fewer.
 * assert.equal(fitEnd("a🙂", 1, 100), "");
 * ```
 * @module
 */
/** JSON a record costs beyond its content: timestamp, source, keys and punctuation. */
export const RECORD_OVERHEAD_BYTES = 64;

const encoder = new TextEncoder();

/** Bytes `text` takes as a JSON string. */
export function jsonBytes(text: string): number {
  return encoder.encode(JSON.stringify(text)).length;
}

/** The end of `text`: at most `chars` characters and `bytes` bytes of JSON. */
export function fitEnd(text: string, chars: number, bytes: number): string {
  let keep = Math.min(text.length, chars);
  for (;;) {
    let start = text.length - keep;
    const code = text.charCodeAt(start);
    if (start > 0 && code >= 0xdc00 && code <= 0xdfff) start++;
    const end = text.slice(start);
    const size = jsonBytes(end);
    if (size <= bytes || end === "") return end;
    keep = Math.floor(end.length * bytes / size * 0.95);
  }
}
