/**
 * The record store against a model: records of several processes and
 * sources, small ones packed into frames and big ones alone, committed in
 * batches of every size, then read through every kind of query. Each answer
 * must equal the same query over the records kept in an array (and the
 * runs of a long read, their records joined). Each test runs
 * on an in-memory database and on a file.
 */
import { RecordStore } from "../../src/core/store/record_store.ts";
import type { RawRecord } from "../../src/core/store/records.ts";
import { RecordDecoder } from "../../src/core/store/record_decoder.ts";
import type { Source } from "../../src/core/model/schema.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { Random } from "../../dev/random.ts";
import { tempDir } from "../../dev/temp_dir.ts";

/** Where the stores of a test go, by name: in memory, then in files of a new directory. */
async function* stores(): AsyncGenerator<(name: string) => string> {
  yield () => ":memory:";
  await using dir = await tempDir("portal-store-test-");
  yield (name) => `${dir.path}/${name}.db`;
}

const SOURCES: Source[] = ["stdin", "stdout", "stderr"];
const encoder = new TextEncoder();

/** Text with multi-byte characters and escape sequences, cut anywhere into records. */
function chunks(rand: Random, count: number): Uint8Array[] {
  const pieces = ["é", "日本", "\x1b[1m", "\x1b[0m", "line\r\n", "x", "🙂", "\n"];
  const out: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const big = rand.next() < 0.02;
    let text = "";
    const want = big ? 40_000 + rand.int(40_000) : 1 + rand.int(12);
    while (text.length < want) text += pieces[rand.int(pieces.length)];
    const bytes = encoder.encode(text);
    // Cut at a random byte: characters and sequences split between records.
    out.push(bytes.subarray(0, Math.max(1, rand.int(bytes.length) + 1)));
  }
  return out;
}

interface Model {
  records: Map<number, RawRecord[]>;
}

function modelQuery(
  model: Model,
  id: number,
  q: Parameters<RecordStore["query"]>[1],
) {
  const all = model.records.get(id) ?? [];
  const after = (s: Source) => q.sources.includes(s) ? q.afterSeq?.[s] ?? 0 : Infinity;
  const rows = all.filter((r) => r.seq > after(r.source));
  const before = (source: Source, seq: number) =>
    all.filter((r) => r.source === source && r.seq < seq).at(-1);
  const text = new RecordDecoder(q.dropCR ?? false, before);
  const limits = { maxChars: q.maxChars, sinceTimestamp: q.sinceTimestamp };
  return q.newest ? text.newest(rows.reverse(), limits) : text.oldest(rows, limits);
}

/**
 * `runs` is `records` (each of them, in order) with records of one source in
 * a row joined, each run's records all older than `since` or none.
 */
function assertRuns(runs: RawRecord[], records: RawRecord[], since: number): void {
  let i = 0;
  for (const run of runs) {
    const first = records[i];
    assertEquals([run.seq, run.timestamp, run.source], [first.seq, first.timestamp, first.source]);
    const joined: number[] = [];
    for (; joined.length < run.bytes.length; i++) {
      const record = records[i];
      assertEquals(record.source, run.source, `run at seq ${run.seq}`);
      assertEquals(record.timestamp >= since, first.timestamp >= since, `run at seq ${run.seq}`);
      joined.push(...record.bytes);
    }
    assertEquals(new Uint8Array(joined), run.bytes, `run at seq ${run.seq}`);
  }
  assertEquals(i, records.length);
}

Deno.test("record store: every query over packed frames equals the same query over the records", async () => {
  // Sources mixed often (short frames), or rarely (frames of up to FRAME_RECORDS records).
  for await (const path of stores()) {
    for (const [seed, mixed] of [[1, 0.2], [2, 0.2], [3, 0.01], [4, 0.01]]) {
      const rand = new Random(seed);
      const store = new RecordStore(path(`queries-${seed}`), { maxOutputBytes: 0 });
      const model: Model = { records: new Map() };
      const seqs = new Map<number, number>();
      let time = 0;
      for (const bytes of chunks(rand, 1000)) {
        // One process at a time for a while, so that long runs form.
        const id = 1 + rand.int(mixed > 0.1 ? 3 : 1.05);
        // Runs of one source, so frames form; now and then another source.
        const source = rand.next() < mixed ? SOURCES[rand.int(3)] : "stdout";
        const seq = (seqs.get(id) ?? 0) + 1;
        seqs.set(id, seq);
        time += 1 + rand.int(1e7);
        const record: RawRecord = { seq, timestamp: time, source, bytes };
        store.append(id, record);
        if (!model.records.has(id)) model.records.set(id, []);
        model.records.get(id)!.push(record);
        if (rand.next() < 0.6 * mixed) store.flush();
      }
      const ids = [...seqs.keys()];
      for (let i = 0; i < 200; i++) {
        const id = ids[rand.int(ids.length)];
        const last = seqs.get(id)!;
        const sources = SOURCES.filter(() => rand.next() < 0.7);
        if (sources.length === 0) sources.push("stdout");
        const cursor = () => rand.int(last + 2);
        const q = {
          sources,
          afterSeq: rand.next() < 0.5
            ? { stdout: cursor(), stderr: cursor(), stdin: cursor() }
            : { stdout: cursor() },
          sinceTimestamp: rand.next() < 0.3 ? rand.int(time) : undefined,
          maxChars: rand.next() < 0.5 ? 1 + rand.int(5000) : undefined,
          newest: rand.next() < 0.4,
          dropCR: rand.next() < 0.5,
        };
        if (q.newest) delete (q as { afterSeq?: unknown }).afterSeq;
        assertEquals(
          store.query(id, q),
          modelQuery(model, id, q),
          `seed ${seed}, ${JSON.stringify(q)}`,
        );
        if (i % 3 === 0) store.flush();
        const from = cursor();
        const raw = store.raw(id, from, 1 + rand.int(100_000));
        const expected = model.records.get(id)!.filter((r) =>
          r.source === "stdout" && r.seq > from
        );
        assertEquals(raw, expected.slice(0, raw.length));
        assert(raw.length > 0 || expected.length === 0);
        const since = rand.next() < 0.5 ? rand.int(time) : -Infinity;
        assertRuns([...store.runs(id, since)], model.records.get(id)!, since);
      }
      store.close();
    }
  }
});

Deno.test("record store: the cap drops whole frames oldest first, never past keepAfter, each record told once", async () => {
  for await (const path of stores()) {
    const cap = 10_000;
    const store = new RecordStore(path("cap"), { maxOutputBytes: cap });
    const dropped: { seq: number; bytes: number }[] = [];
    let keepAfter = 0;
    store.track(1, {
      keepAfter: () => keepAfter,
      dropped: (record, bytes) => dropped.push({ seq: record.seq, bytes }),
    });
    const rand = new Random(7);
    const sizes: number[] = [];
    for (let seq = 1; seq <= 4000; seq++) {
      const size = 1 + rand.int(20);
      sizes.push(size);
      store.append(1, { seq, timestamp: seq, source: "stdout", bytes: new Uint8Array(size) });
      if (seq % 50 === 0) {
        keepAfter = seq - 100;
        store.flush();
      }
    }
    store.flush();
    store.flush(); // Trims what the last commit wrote.
    // Dropped: a prefix of the records, in order, each once, none past what was protected.
    assertEquals(dropped.map((d) => d.seq), dropped.map((_, i) => i + 1));
    assertEquals(dropped.map((d) => d.bytes), sizes.slice(0, dropped.length));
    assert(dropped.length > 0 && dropped.at(-1)!.seq <= keepAfter);
    const kept = store.raw(1, 0, Infinity);
    assertEquals(kept[0].seq, dropped.length + 1);
    assertEquals(kept.length, 4000 - dropped.length);
    const bytes = kept.reduce((sum, r) => sum + r.bytes.length, 0);
    assert(bytes <= cap + 50 * 20, `${bytes} bytes kept`);
    // The runs start at the first record kept, in a frame the cap cut into; one is cut at
    // `since`, in the middle of a frame (a commit's 50 records).
    const since = kept.find((r) => r.seq % 50 === 25)!.timestamp;
    assertRuns([...store.runs(1, since)], kept, since);
    store.close();
  }
});
