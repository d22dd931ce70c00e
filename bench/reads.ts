/**
 * Reads in constant time: the query behind `process_read_new` (one cursor,
 * the newest records unread) and behind `process_read` (a recent window), on
 * a store holding 1 GB of 64 KiB chunks beside one holding 1 MB, and on 1 M
 * small records beside 1 MB of them. Goal: the big store within 2× of the
 * small one. On the store directly: a tool call adds ~1 ms of MCP on top.
 *
 * Run: deno run -A bench/reads.ts
 *
 * @module
 */
import { tempDir } from "../dev/temp_dir.ts";
import { RecordStore } from "../src/core/store/record_store.ts";
import { median, ms, row } from "./lib.ts";

const CALLS = 300;
await using dir = await tempDir("portal-bench-reads-");

/** A store with `count` records of `size` bytes of text lines for process 1. */
function filled(name: string, count: number, size: number): RecordStore {
  const store = new RecordStore(`${dir.path}/${name}.db`, { maxOutputBytes: 0 });
  const line = "x".repeat(79) + "\n";
  const chunk = new TextEncoder().encode(
    line.repeat(Math.ceil(size / 80)).slice(0, size - 1) + "\n",
  );
  for (let seq = 1; seq <= count; seq++) {
    store.append(1, { seq, timestamp: seq * 1000, source: "stdout", bytes: chunk });
  }
  store.flush();
  return store;
}

/** Median ms of `fn` over CALLS calls. */
function time(fn: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  return median(times);
}

/** read_new with `unread` records after the cursor, and a window over the newest `unread`. */
function reads(store: RecordStore, count: number, unread: number) {
  const afterSeq = { stdout: count - unread, stderr: count - unread };
  return {
    readNew: time(() =>
      store.query(1, { sources: ["stdout", "stderr"], afterSeq, maxChars: 100_000 })
    ),
    window: time(() =>
      store.query(1, {
        sources: ["stdout", "stderr"],
        sinceTimestamp: (count - unread + 1) * 1000,
        maxChars: 100_000,
        newest: true,
      })
    ),
  };
}

const cases = [
  { label: "1 GB of 64 KiB chunks", small: [16, 65536], big: [16384, 65536], unread: 1 },
  { label: "1 M records of 10 B", small: [100_000, 10], big: [1_000_000, 10], unread: 100 },
] as const;
for (const { label, small, big, unread } of cases) {
  const a = filled(`small-${small[1]}`, small[0], small[1]);
  const b = filled(`big-${big[1]}`, big[0], big[1]);
  const onSmall = reads(a, small[0], unread);
  const onBig = reads(b, big[0], unread);
  a.close();
  b.close();
  for (const kind of ["readNew", "window"] as const) {
    const ratio = onBig[kind] / onSmall[kind];
    row(
      "1 reads",
      `${kind === "readNew" ? "read_new" : "read (window)"} at the end of ${label} vs 1 MB`,
      `${ms(onBig[kind])} vs ${ms(onSmall[kind])} = ${ratio.toFixed(2)}×`,
      "≤ 2×",
      ratio <= 2,
    );
  }
}
