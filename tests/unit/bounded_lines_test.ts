/**
 * A line past the bound is skipped as it streams in, and its reader hears
 * its size and its two ends (the first and last 4096 bytes), however the
 * line was cut into chunks: src/bounded_lines.ts.
 */
import { BoundedLines, type SkippedLine } from "../../src/bounded_lines.ts";
import { assertEquals } from "../helpers/assert.ts";

Deno.test("a skipped line's size and ends, whatever its chunks", () => {
  const line = Array.from({ length: 20_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(
    "",
  );
  const bytes = new TextEncoder().encode(`${line}\nnext\n`);
  for (const size of [1, 7, 4096, 4097, 9_000, bytes.length]) {
    const lines: string[] = [];
    const skipped: SkippedLine[] = [];
    const reader = new BoundedLines(10_000, {
      line: (text) => lines.push(text),
      tooLong: (what) => skipped.push(what),
    });
    for (let at = 0; at < bytes.length; at += size) reader.push(bytes.slice(at, at + size));
    assertEquals(lines, ["next"], `chunks of ${size}`);
    assertEquals(skipped, [{ size: 20_000, head: line.slice(0, 4096), tail: line.slice(-4096) }]);
  }
});
