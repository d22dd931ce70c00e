/**
 * process_read by lines against a plain reference (all the text split into
 * lines, each tested by JavaScript's own regex): seeded random outputs of
 * small and large records, lines cut across records, colors and CRLFs, so
 * that a match at a block's edge, context reaching into the block before or
 * after, and the line numbers all agree with it; a terminal's CRs (bare ones,
 * inside escape sequences, CR LF cut by records and by other sources, stdin's
 * own); the same search over the store's runs (a frame's records joined) and
 * over its records; and a line too long to be searched whole.
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

/**
 * The reference: every line of the text of a terminal's records, numbered
 * from 1: each output source through a decoder of its own that drops every
 * CR, stdin as it was typed.
 */
function reference(records: RawRecord[]): string[] {
  const stdin = new TextDecoder();
  const decoders = {
    stdout: new OutputDecoder({ dropCR: true }),
    stderr: new OutputDecoder({ dropCR: true }),
  };
  const text = records.map((r) =>
    r.source === "stdin"
      ? stdin.decode(r.bytes, { stream: true })
      : decoders[r.source].decode(r.bytes)
  ).join("");
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * Searches `records` as a terminal's for each pattern and asserts what the
 * reference's lines tested by its JavaScript twin give: the count, the
 * number of lines and the lines shown.
 */
async function agreesWithReference(
  records: RawRecord[],
  patterns: readonly (readonly [string, RegExp, number])[],
): Promise<void> {
  const lines = reference(records);
  for (const [source, js, context] of patterns) {
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
}

for (const seed of [1, 2, 3]) {
  Deno.test(`line search agrees with a plain reference (seed ${seed})`, async () => {
    const records = output(new Random(seed));
    const lines = reference(records);
    await agreesWithReference(records, [
      ["^error: unit \\d+ failed$", /^error: unit \d+ failed$/, 2],
      ["(?i)WARNING", /warning/i, 0],
      ["unit 1\\d*0 ", /unit 1\d*0 /, 1],
    ]);
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

/**
 * A terminal's output and input cut into records of random sizes, the
 * sources interleaved: CR LF, bare CRs (one inside a literal the search looks
 * for), CRs inside escape sequences, characters of 2 to 4 bytes; if `typed`,
 * stdin with its own CRs. Every stream ends its last line.
 */
function terminalRecords(random: Random, typed: boolean): RawRecord[] {
  // Bare CRs are rare, in every other stretch of 8,000 lines (~250 KB): many texts keep their
  // line ends' CRs, large ones too, some lose them all.
  const bare = (i: number) =>
    random.pick([
      `ER\rR unit ${i} (a bare CR inside)\r\n`,
      `${i}%\r${i + 1}%\rdone ${i}\r\n`,
      `\x1b[\r1mweird ${i}\r\n`,
      "\r\r\r",
    ]);
  const lines = {
    stdout: (i: number) =>
      Math.floor(i / 8000) % 2 === 1 && random.chance(0.02) ? bare(i) : random.pick([
        `[${i}] CC obj/${"x".repeat(random.int(60))}.o\r\n`,
        `ERR unit ${i}\r\n`,
        `\x1b]0;title ${i}\r\x07\x1b[31mERR\x1b[0m unit ${i}\r\n`,
        `日本é 🙂 ${i}\r\n`,
        "say hi\r\n",
        `a CR LF file's line ${i}\r\r\n`,
        `only a newline ${i}\n`,
      ]),
    stderr: (i: number) =>
      random.chance(0.02) ? "done\r" : random.pick([`warning ${i}\r\n`, `ERR unit ${i}\r\n`]),
    stdin: (i: number) => random.pick(["ls\r", "echo hi\r\n", `typed ${i}\n`, "x"]),
  };
  const sources = Object.entries(lines).filter(([source]) => typed || source !== "stdin");
  const streams = sources.map(([source, line]) => {
    let text = "";
    for (let i = 0; text.length < (source === "stdout" ? 600_000 : 30_000); i++) text += line(i);
    return {
      source: source as keyof typeof lines,
      bytes: new TextEncoder().encode(text + "\n"),
      at: 0,
    };
  });
  const records: RawRecord[] = [];
  for (let seq = 1; streams.some((s) => s.at < s.bytes.length); seq++) {
    const stream = random.pick(streams.filter((s) => s.at < s.bytes.length));
    const large = stream.source === "stdout" && random.chance(0.05);
    const size = large ? 70_000 + random.int(200_000) : 1 + random.int(300);
    records.push({
      seq,
      timestamp: seq,
      source: stream.source,
      bytes: stream.bytes.subarray(stream.at, stream.at + size),
    });
    stream.at += size;
  }
  return records;
}

for (const [seed, typed] of [[5, false], [6, false], [7, true], [8, true]] as const) {
  const what = typed ? "its own and stdin's" : "its own";
  Deno.test(`a terminal's CRs, ${what}, leave the lines the reference has (seed ${seed})`, async () => {
    await agreesWithReference(terminalRecords(new Random(seed), typed), [
      ["ERR unit \\d+", /ERR unit \d+/, 2],
      ["(?i)DONE \\d", /done \d/i, 1],
      ["hi$", /hi$/, 1],
      ["^ls", /^ls/, 0],
      ["weird", /weird/, 3],
      ["line \\d+$", /line \d+$/, 1],
    ]);
  });
}

Deno.test("stdin's own CR before a newline stays, a block cut just before it or in it", async () => {
  // Small texts (runs of stdout between stderr's) up to a few characters short of a block
  // (BLOCK_CHARS, blocks.ts: 256 Ki), then stdin's "ls\r": a block ends before it, and the
  // newline that ends its line comes after, from stdout and without a CR.
  for (let short = 1; short <= 6; short++) {
    const records: RawRecord[] = [];
    let size = 0;
    const add = (source: RawRecord["source"], text: string) => {
      const seq = records.length + 1;
      records.push({ seq, timestamp: seq, source, bytes: new TextEncoder().encode(text) });
      size += text.length;
    };
    while (size < 256 * 1024 - 5_000) {
      add("stdout", "1234567\r\n".repeat(444));
      add("stderr", "e\r\n");
    }
    add("stdout", "\n".repeat(256 * 1024 - short - size));
    add("stdin", "ls\r");
    add("stdout", "\nnext\r\n");
    // And a paste long enough to be cut in place (IN_PLACE_CHARS, 16 Ki).
    add("stdin", "echo hi\r\n".repeat(3_000) + "echo hi\r");
    add("stdout", "\nsaid hi\r\n");
    await agreesWithReference(records, [["^ls", /^ls/, 1], ["hi$", /hi$/, 0]]);
  }
});

Deno.test("a long line of a terminal with bare CRs is cut in the pieces the reference has", async () => {
  // 150,000 characters once its CRs are dropped: three pieces, the needle in the last.
  const long = "50%\r".repeat(50_000) + "needle\r\n";
  const bytes = new TextEncoder().encode(`before\r\n${long}after\r\n`);
  for (const size of [1000, bytes.length]) {
    const records: RawRecord[] = [];
    for (let at = 0, seq = 1; at < bytes.length; at += size, seq++) {
      records.push({ seq, timestamp: seq, source: "stdout", bytes: bytes.subarray(at, at + size) });
    }
    const found = await searchLines(records, {
      dropCR: true,
      pattern: Pattern.compile("needle|after", "pattern"),
      context: 0,
      maxChars: 10_000,
    });
    assertEquals([found.matches, found.totalLines], [2, 3], `records of ${size}`);
    assertEquals(found.lines.map((l) => [l.line, l.text.slice(-6)]), [[2, "needle"], [3, "after"]]);
  }
});

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
