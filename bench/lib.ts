/**
 * What the benchmark scripts share: a row of the table (a figure beside its
 * goal), medians and percentiles, a data file, and the server's own counters
 * from /proc. Each script prints its rows as `ROW {json}` lines; bench/main.ts
 * gathers them into one table.
 *
 * @module
 */
import { tempDir } from "../dev/temp_dir.ts";

/** The /proc counters benches read, from the one reader tests and dev/ use too. */
export { procIo, procStatus } from "../dev/process_table.ts";

/** One line of the table. */
export interface Row {
  item: string;
  measure: string;
  figure: string;
  goal: string;
  met: boolean;
}

/** Prints a row for bench/main.ts (and for a person running the script alone). */
export function row(item: string, measure: string, figure: string, goal: string, met: boolean) {
  console.log(`ROW ${JSON.stringify({ item, measure, figure, goal, met } satisfies Row)}`);
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
/**
 * The median of `xs` with its 95% interval (distribution-free: the order
 * statistics a binomial count puts around the median; from 6 samples on;
 * with 10 or fewer, the smallest and the largest).
 */
export function medianInterval(xs: number[]) {
  const sorted = [...xs].sort((a, b) => a - b);
  // The j-th smallest and the j-th largest (j counted from 1).
  const j = Math.max(1, Math.floor((sorted.length - 1.96 * Math.sqrt(sorted.length)) / 2));
  return { median: median(sorted), low: sorted[j - 1], high: sorted[sorted.length - j] };
}
export const ms = (x: number) => `${x < 10 ? x.toFixed(2) : x.toFixed(0)} ms`;
export const mb = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 2 : 0)} MB`;

/** Seconds `fn` took. */
export async function seconds(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return (performance.now() - start) / 1000;
}

/** A temporary directory with a file of `mb` MiB of 80-character lines. */
export async function dataFile(mib: number) {
  const dir = await tempDir("portal-bench-");
  const path = `${dir.path}/data.txt`;
  const line = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_=+[]{};:,.<>/?!\n";
  const block = new TextEncoder().encode(line.repeat(Math.ceil((1 << 20) / line.length)))
    .subarray(0, 1 << 20);
  using out = await Deno.open(path, { write: true, create: true, truncate: true });
  for (let i = 0; i < mib; i++) await out.write(block);
  return {
    path,
    bytes: mib << 20,
    [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose](),
  };
}

/** `n` busy loops beside the benchmark (every CPU busy); kill them with the returned function. */
export function cpuHogs(n: number): () => Promise<void> {
  const hogs = Array.from(
    { length: n },
    () => new Deno.Command("sh", { args: ["-c", "while :; do :; done"], stdout: "null" }).spawn(),
  );
  return async () => {
    for (const hog of hogs) hog.kill("SIGKILL");
    await Promise.all(hogs.map((h) => h.status));
  };
}
