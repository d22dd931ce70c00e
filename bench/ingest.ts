/**
 * Ingest through the whole server: `cat` of a 200 MiB file, process_start →
 * status exited (every byte stored by then), on pipes beside a bare
 * `Deno.Command` read loop, and on a PTY beside the kernel's own rate
 * (`script -qfc`), interleaved, median of 3. Goal: both ≥ 0.90×. Also how long
 * the first process_screen takes after the flood (the lazy emulator catching
 * up), and the backend alone (spawnPty, no store, no screen). And the CPU time of
 * the server's main thread (the one that reads programs and answers calls) per
 * MiB, which the machine's load does not change as it changes the rates.
 *
 * Run: deno run -A bench/ingest.ts [MiB]
 *
 * @module
 */
import { Portal } from "../dev/portal_client.ts";
import { spawnPty } from "../src/terminal/backends.ts";
import { dataFile, median, row, seconds } from "./lib.ts";

const MIB = Number(Deno.args[0] ?? 200);
const RUNS = 3;
await using data = await dataFile(MIB);
await using portal = await Portal.start({ env: { PORTAL_MAX_OUTPUT_BYTES: "0" } });

async function bare(): Promise<void> {
  const child = new Deno.Command("cat", { args: [data.path], stdout: "piped" }).spawn();
  let bytes = 0;
  for await (const chunk of child.stdout) bytes += chunk.length;
  await child.status;
  if (bytes !== data.bytes) throw new Error(`bare reader got ${bytes} bytes`);
}

async function script(): Promise<void> {
  const { success } = await new Deno.Command("script", {
    args: ["-qfc", `cat '${data.path}'`, "/dev/null"],
    stdout: "null",
  }).output();
  if (!success) throw new Error("script failed");
}

function backend(): Promise<void> {
  const { promise, resolve } = Promise.withResolvers<void>();
  spawnPty({
    command: "cat",
    args: [data.path],
    cwd: "/",
    env: Deno.env.toObject(),
    cols: 80,
    rows: 24,
  }, {
    onData: () => {},
    onExit: () => resolve(),
  });
  return promise;
}

let screenSeconds = 0;
/** CPU ms of the server's main thread (Linux: its schedstat), per run, by backend. */
const mainCpu = { pipes: [] as number[], pty: [] as number[] };
const threadCpu = () => {
  const pid = portal.serverPid;
  return Number(Deno.readTextFileSync(`/proc/${pid}/task/${pid}/schedstat`).split(" ")[0]) / 1e6;
};
/** One run through the server; a PTY's screen is then brought up to date, off the clock. */
async function server(pty: boolean): Promise<number> {
  let id = 0;
  const cpu = threadCpu();
  const took = await seconds(async () => {
    id = await portal.spawn("cat", [data.path], { pty });
    for (;;) {
      const info = await portal.call("process_inspect", { id });
      if (info.status !== "running") break;
      await new Promise((r) => setTimeout(r, 5));
    }
  });
  mainCpu[pty ? "pty" : "pipes"].push(threadCpu() - cpu);
  if (pty) screenSeconds = await seconds(() => portal.call("process_screen", { id }));
  await portal.call("process_cleanup", { id });
  return took;
}

const t = {
  bare: [] as number[],
  pipes: [] as number[],
  script: [] as number[],
  pty: [] as number[],
  backend: [] as number[],
};
for (let i = 0; i < RUNS; i++) {
  t.bare.push(await seconds(bare));
  t.pipes.push(await server(false));
  t.script.push(await seconds(script));
  t.pty.push(await server(true));
  t.backend.push(await seconds(backend));
}
const rate = (s: number) => `${(data.bytes / 1e6 / s).toFixed(0)} MB/s`;
const ratio = (a: number[], b: number[]) => median(b) / median(a);
const pipes = ratio(t.pipes, t.bare);
const pty = ratio(t.pty, t.script);
row(
  "2 ingest",
  `pipes: server vs bare Deno.Command reader (${MIB} MiB)`,
  `${rate(median(t.pipes))} vs ${rate(median(t.bare))} = ${pipes.toFixed(2)}×`,
  "≥ 0.90×",
  pipes >= 0.9,
);
row(
  "2 ingest",
  `PTY: server vs script -qfc (${MIB} MiB)`,
  `${rate(median(t.pty))} vs ${rate(median(t.script))} = ${pty.toFixed(2)}×`,
  "≥ 0.90×",
  pty >= 0.9,
);
row(
  "2 ingest",
  "PTY backend alone (spawnPty, no store) vs script -qfc",
  `${rate(median(t.backend))} = ${ratio(t.backend, t.script).toFixed(2)}×`,
  "(context)",
  true,
);
row(
  "2 ingest",
  `first process_screen after the ${MIB} MiB PTY flood (emulator catches up)`,
  `${screenSeconds.toFixed(2)} s`,
  "(context)",
  true,
);
row(
  "2 ingest",
  "CPU of the server's main thread per MiB stored: pipes, PTY (the reads, the calls)",
  `${(median(mainCpu.pipes) / MIB).toFixed(2)} ms, ${(median(mainCpu.pty) / MIB).toFixed(2)} ms`,
  "(context)",
  true,
);
