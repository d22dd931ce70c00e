/**
 * End-to-end ingest through the real server: a program writes a large file
 * as fast as it can and exits; we time process_start → status exited (every
 * byte decoded, stripped and committed to SQLite by then), on pipes and on a
 * PTY, beside `cat FILE > /dev/null` for the producer's own speed.
 *
 * Run: deno run -A bench/server_ingest.ts [MB]
 */
import { Portal } from "../dev/portal_client.ts";
import { tempDir } from "../dev/temp_dir.ts";

const mb = Number(Deno.args[0] ?? 200);
await using dir = await tempDir("portal-bench-");
const file = `${dir.path}/data.txt`;
{
  const line =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_=+[]{};:,.<>/?!@#$%^&*()\n";
  const block = new TextEncoder().encode(
    line.repeat(Math.ceil((1 << 20) / line.length)).slice(0, 1 << 20),
  );
  const out = await Deno.open(file, { write: true, create: true });
  for (let i = 0; i < mb; i++) await out.write(block);
  out.close();
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rate = (ms: number) => `${(mb / (ms / 1000)).toFixed(0)} MB/s`;

await using portal = await Portal.start();
const producer = median(
  await Promise.all([0, 1, 2].map(() =>
    timed(async () => {
      await new Deno.Command("sh", { args: ["-c", `cat ${file} > /dev/null`] }).output();
    })
  )),
);
console.log(`producer alone (cat > /dev/null): ${producer.toFixed(0)} ms`);
for (const pty of [false, true]) {
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) {
    runs.push(
      await timed(async () => {
        const id = await portal.spawn("cat", [file], { pty });
        await portal.waitExit(id, 600_000);
        await portal.call("process_cleanup", { id });
      }),
    );
  }
  console.log(
    `${pty ? "pty  " : "pipes"}: ${mb} MB start→exited median ${median(runs).toFixed(0)} ms = ${
      rate(median(runs))
    }`,
  );
}
