/**
 * PTY backend figures: throughput of `cat` of a 200 MB file through
 * spawnPty, beside the kernel's own limit measured the same way by
 * `script -qfc` (median of 3 each), and write-to-echo latency of one
 * keystroke (median and p95 of 200). Goal: spawnPty ≥ 80% of script.
 *
 * Run: deno run -A bench/pty_throughput.ts
 *
 * @module
 */
import { tempDir } from "../dev/temp_dir.ts";
import { spawnPty } from "../src/terminal/backends.ts";

const FILE_MB = 200;
const RUNS = 3;
const KEYSTROKES = 200;

const env = Deno.env.toObject();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

/** Seconds to deliver all of `cat file` to onData, and the bytes delivered. */
function catThroughPty(file: string): Promise<{ seconds: number; bytes: number }> {
  const { promise, resolve } = Promise.withResolvers<{ seconds: number; bytes: number }>();
  let bytes = 0;
  const start = performance.now();
  spawnPty({ command: "cat", args: [file], cwd: "/", env, cols: 80, rows: 24 }, {
    onData: (_, chunk) => bytes += chunk.length,
    onExit: () => resolve({ seconds: (performance.now() - start) / 1000, bytes }),
  });
  return promise;
}

async function catThroughScript(file: string): Promise<number> {
  const start = performance.now();
  const { success } = await new Deno.Command("script", {
    args: ["-qfc", `cat '${file}'`, "/dev/null"],
    stdout: "null",
    stderr: "inherit",
  }).output();
  if (!success) throw new Error("script failed");
  return (performance.now() - start) / 1000;
}

/** Milliseconds from writing one byte to `cat` until the terminal echoes it. */
async function keystrokeLatencies(): Promise<number[]> {
  let waiting: (() => void) | null = null;
  const term = spawnPty({ command: "cat", args: [], cwd: "/", env, cols: 80, rows: 24 }, {
    onData: (_, chunk) => {
      if (chunk.includes(0x78)) waiting?.();
    },
    onExit: () => {},
  });
  const key = new TextEncoder().encode("x");
  const times: number[] = [];
  for (let i = 0; i < KEYSTROKES; i++) {
    const echoed = new Promise<void>((resolve) => waiting = resolve);
    const start = performance.now();
    term.write(key);
    await echoed;
    times.push(performance.now() - start);
    // Keep cat's line buffer short.
    if (i % 50 === 49) term.write(new TextEncoder().encode("\n"));
  }
  await term.kill();
  return times;
}

await using dir = await tempDir("pty_bench_");
const file = `${dir.path}/data.txt`;
const line =
  "The quick brown fox jumps over the lazy dog; 0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ.\n";
const block = new TextEncoder().encode(line.repeat(Math.ceil((1 << 20) / line.length)))
  .subarray(0, 1 << 20);
using out = await Deno.open(file, { write: true, create: true, truncate: true });
for (let i = 0; i < FILE_MB; i++) await out.write(block);
const size = FILE_MB * (1 << 20);

const pty: number[] = [];
const script: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const { seconds, bytes } = await catThroughPty(file);
  pty.push(seconds);
  script.push(await catThroughScript(file));
  console.log(
    `run ${i + 1}: spawnPty ${(size / seconds / 1e6).toFixed(1)} MB/s ` +
      `(${bytes} bytes delivered, CRLF included) · script ` +
      `${(size / script[i] / 1e6).toFixed(1)} MB/s`,
  );
}
const ptyRate = size / median(pty) / 1e6;
const scriptRate = size / median(script) / 1e6;
console.log(`\ncat of a ${FILE_MB} MiB file, median of ${RUNS}:`);
console.log(`  spawnPty      ${ptyRate.toFixed(1)} MB/s`);
console.log(`  script -qfc   ${scriptRate.toFixed(1)} MB/s`);
console.log(`  ratio         ${(100 * ptyRate / scriptRate).toFixed(0)}% (goal ≥ 80%)`);

const latencies = await keystrokeLatencies();
console.log(`\nkeystroke write → echo, ${KEYSTROKES} samples:`);
console.log(
  `  median ${median(latencies).toFixed(3)} ms · p95 ${percentile(latencies, 0.95).toFixed(3)} ms`,
);
