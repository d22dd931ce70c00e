/**
 * Doors started at one instant make the host's directory at one instant:
 * one finds a directory missing, and another makes it before its own mkdir.
 * Each must then use it, not fall back to the temporary directory's (whose
 * socket no host it starts serves: such a door waited 60 s, then failed).
 * Workers (threads) call `runtimeDir` released together, round after round.
 */
import { assertEquals } from "../helpers/assert.ts";

const WORKERS = 6;
const ROUNDS = 200;

/** The directory each worker would use for `base`, all released at one instant. */
async function round(workers: Worker[], base: string): Promise<string[]> {
  Deno.mkdirSync(`${base}/tmp`, { recursive: true, mode: 0o700 });
  const go = new SharedArrayBuffer(4);
  // Each worker says "ready", then, released, the directory it would use.
  const said = workers.map((worker) => {
    let ready!: () => void;
    let answered!: (dir: string) => void;
    const readiness = new Promise<void>((resolve) => ready = resolve);
    const answer = new Promise<string>((resolve) => answered = resolve);
    worker.onmessage = ({ data }) => data === "ready" ? ready() : answered(data);
    worker.postMessage({ base, go });
    return { readiness, answer };
  });
  await Promise.all(said.map(({ readiness }) => readiness));
  Atomics.store(new Int32Array(go), 0, 1);
  Atomics.notify(new Int32Array(go), 0);
  return await Promise.all(said.map(({ answer }) => answer));
}

Deno.test({
  name: "threads making the host's directory at one instant all use it",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const url = new URL("../helpers/runtime_dir_worker.ts", import.meta.url);
    const workers: Worker[] = [];
    const root = Deno.makeTempDirSync();
    try {
      // Started one by one: the first loads (and, cold, type-checks) the module for the rest.
      for (let i = 0; i < WORKERS; i++) {
        workers.push(new Worker(url, { type: "module" }));
        await round(workers, `${root}/start-${i}`);
      }
      for (let i = 0; i < ROUNDS; i++) {
        const base = `${root}/${i}`;
        const dirs = await round(workers, base);
        assertEquals(dirs, dirs.map(() => `${base}/a/b/c/d/e/portal`), `round ${i}`);
      }
    } finally {
      for (const worker of workers) worker.terminate();
      Deno.removeSync(root, { recursive: true });
    }
  },
});
