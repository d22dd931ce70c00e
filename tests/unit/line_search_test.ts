/**
 * process_read by lines against a plain reference (all the text split into
 * lines, each tested by JavaScript's own regex): seeded random outputs of
 * small and large records, lines cut across records, colors and CRLFs, so
 * that a match at a block's edge, context reaching into the block before or
 * after, and the line numbers all agree with it; the same search over the
 * store's runs (a frame's records joined) and over its records; and a line
 * too long to be searched whole.
 */
import { Random } from "../../dev/random.ts";
import { linesAround, searchLines, type ShownLine } from "../../src/core/output/lines/search.ts";
import { OutputDecoder } from "../../src/core/text/decoder.ts";
import { Pattern } from "../../src/core/pattern/pattern.ts";
import type { RawRecord } from "../../src/core/store/records.ts";
import { RecordStore } from "../../src/core/store/record_store.ts";
import { assert, assertEquals } from "../helpers/assert.ts";

/** Random build-like output cut into records of random sizes, some large, as a PTY writes it. */
function output(random: Random): RawRecord[] {
  let text = "";
  for (let i = 0; text.length < 1_500_000; i++) {
    const kind = random.int(1000);
    text += kind === 0
      ? `\x1b[31merror\x1b[0m: unit ${i} failed\r\n`
      : kind < 5
      ? `warning: unit ${i}\r\n`
      : `[${i}] CC obj/${"x".repeat(random.int(60))}.o\r\n`;
  }
  const bytes = new TextEncoder().encode(text);
  const records: RawRecord[] = [];
  for (let at = 0, seq = 1; at < bytes.length; seq++) {
    const size = random.chance(0.1) ? 70_000 + random.int(200_000) : 1 + random.int(300);
    records.push({ seq, timestamp: seq, source: "stdout", bytes: bytes.subarray(at, at + size) });
    at += size;
  }
  return records;
}

/** The reference: every line of the decoded text, numbered from 1. */
function reference(records: RawRecord[]): string[] {
  const decoder = new OutputDecoder({ dropCR: true });
  const text = records.map((r) => decoder.decode(r.bytes)).join("") + decoder.decode();
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

for (const seed of [1, 2, 3]) {
  Deno.test(`line search agrees with a plain reference (seed ${seed})`, async () => {
    const records = output(new Random(seed));
    const lines = reference(records);
    for (
      const [source, js, context] of [
        ["^error: unit \\d+ failed$", /^error: unit \d+ failed$/, 2],
        ["(?i)WARNING", /warning/i, 0],
        ["unit 1\\d*0 ", /unit 1\d*0 /, 1],
      ] as const
    ) {
      const found = await searchLines(records, {
        dropCR: true,
        pattern: Pattern.compile(source, "pattern"),
        context,
        maxChars: 1_000_000,
      });
      const matching = lines.flatMap((line, i) => js.test(line) ? [i + 1] : []);
      assertEquals(found.matches, matching.length, source);
      assertEquals(found.totalLines, lines.length);
      const shown = new Set(
        matching.flatMap((n) =>
          Array.from({ length: 2 * context + 1 }, (_, k) => n - context + k)
            .filter((k) => k >= 1 && k <= lines.length)
        ),
      );
      const expected: ShownLine[] = [...shown].sort((a, b) => a - b).map((n) => ({
        line: n,
        text: lines[n - 1],
        ...matching.includes(n) ? { match: true as const } : {},
      }));
      assertEquals(found.lines, expected, source);
    }
    // Around a line near a large record's edge, and at the very end.
    for (const line of [matchingLine(lines), lines.length]) {
      const around = await linesAround(records, { dropCR: true, line, context: 4, maxChars: 1e6 });
      const from = Math.max(1, line - 4);
      const to = Math.min(lines.length, line + 4);
      assertEquals(
        around.lines,
        lines.slice(from - 1, to).map((text, i) => ({ line: from + i, text })),
      );
    }
  });
}

Deno.test("a search over the store's runs finds what it finds over its records, window too", async () => {
  const records = output(new Random(4));
  const store = new RecordStore(":memory:", { maxOutputBytes: 0 });
  for (const [i, record] of records.entries()) {
    store.append(1, record);
    if (i % 40 === 39) store.flush(); // Frames of up to 40 small records, large ones alone.
  }
  store.flush();
  const last = records.at(-1)!.timestamp;
  // Windows that start inside frames: a run is cut where they start.
  for (const since of [undefined, Math.floor(last / 3) + 7, last - 20]) {
    const q = {
      dropCR: true,
      pattern: Pattern.compile("^\\[\\d*7\\] CC ", "pattern"), // One line in ten.
      context: 2,
      maxChars: 1_000_000,
      sinceTimestamp: since,
    };
    const overRuns = await searchLines(store.runs(1, since), q);
    assertEquals(overRuns, await searchLines(records, q), `since ${since}`);
    assert(
      since === undefined || overRuns.matches! < (await searchLines(records, {
            ...q,
            sinceTimestamp: undefined,
          })).matches!,
    );
  }
  store.close();
});

/** The number of the first error line. */
function matchingLine(lines: string[]): number {
  return lines.findIndex((line) => line.startsWith("error")) + 1;
}

Deno.test("a line longer than 64 KiB is searched in pieces, under one number", async () => {
  const long = "x".repeat(200_000) + "needle" + "y".repeat(100_000);
  const bytes = new TextEncoder().encode(`first\n${long}\nneedle after\n`);
  const records: RawRecord[] = [{ seq: 1, timestamp: 1, source: "stdout", bytes }];
  const found = await searchLines(records, {
    dropCR: false,
    pattern: Pattern.compile("needle", "pattern"),
    context: 0,
    maxChars: 10_000,
  });
  assertEquals([found.matches, found.totalLines], [2, 3]);
  assertEquals(found.lines.map((l) => l.line), [2, 3]);
  // The match shown where it is, the cut marked.
  assertEquals(found.lines[0].text.length, 1002);
  assertEquals(found.lines[0].text.slice(101, 107), "needle");
});

Deno.test("a flood's large record, decoded in pieces, loses no character or sequence", async () => {
  // Lines of 3-byte and 4-byte characters and colours; one line of 300 KB without a newline,
  // longer than a piece (256 KiB), so that a piece is cut inside it.
  const line = (i: number) => `日本 🙂 \x1b[1m${i}\x1b[0m: ${i % 997 === 0 ? "fail" : "ok"}\r\n`;
  const text = Array.from({ length: 20_000 }, (_, i) => line(i)).join("") +
    "é\x1b[31m日".repeat(30_000) + " fail\r\n" + line(20_000);
  const bytes = new TextEncoder().encode(text);
  const records: RawRecord[] = [{ seq: 1, timestamp: 1, source: "stdout", bytes }];
  const lines = reference(records);
  const found = await searchLines(records, {
    dropCR: true,
    pattern: Pattern.compile(": fail$|日 fail$", "pattern"),
    context: 0,
    maxChars: 1_000_000,
  });
  const matching = lines.flatMap((l, i) => /: fail$|日 fail$/.test(l) ? [i + 1] : []);
  assertEquals([found.matches, found.totalLines], [matching.length, lines.length]);
  assertEquals(found.lines.map((l) => l.line), matching);
  assertEquals(found.lines.at(-2)!.text, lines[matching.at(-2)! - 1]);
});

Deno.test("a search too long for its time stops, says where, and never holds the thread", async () => {
  // 14 MB of lines and a pattern without a literal: RE2 on every line, seconds of work at its
  // size on any machine; the search stops at its budget (READ_LINES.searchMs in the server).
  const line = "abcdefghij".repeat(7) + "\n";
  const bytes = new TextEncoder().encode(line.repeat(200_000));
  const records: RawRecord[] = [];
  for (let at = 0, seq = 1; at < bytes.length; at += 65536, seq++) {
    records.push({ seq, timestamp: seq, source: "stdout", bytes: bytes.subarray(at, at + 65536) });
  }
  let turns = 0;
  let ticking = true;
  const tick = () => {
    turns++;
    if (ticking) setTimeout(tick, 0);
  };
  tick();
  const start = performance.now();
  const found = await searchLines(records, {
    dropCR: false,
    pattern: Pattern.compile("[a-j]{20}[0-9]{20}|[k-z]{30}", "pattern"),
    context: 0,
    maxChars: 1000,
    budgetMs: 300,
  });
  const took = performance.now() - start;
  ticking = false;
  assertEquals([found.matches, found.truncated], [0, true]);
  assert(found.stoppedAt! > 0 && found.stoppedAt! < 200_000, `stopped at ${found.stoppedAt}`);
  assertEquals(found.totalLines, found.stoppedAt);
  assert(took >= 300, `${took} ms`);
  // Other work ran between its slices: timers fired all along.
  assert(turns > 5, `${turns} timer turns in ${took} ms`);
});
