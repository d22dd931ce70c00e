/**
 * One long build (90 s, a line a second) run by a scripted agent in each
 * shape a client speaks for long work (dev/long_build.ts): MCP 2025-11-25
 * tasks (the SDK v1 client's runtime, what VS Code speaks), 2026-07-28 tasks
 * with `subscriptions/listen`, and a plain call kept alive by progress. Rows:
 * the model's calls (goal 1), protocol messages both ways, characters of the
 * reply the model reads, and the delay from the build's end to the client
 * knowing (goal ≤ 100 ms: each shape is told, none has to poll for the end).
 * The three run one after the other, so about five minutes.
 *
 * Run: deno run -A --lock=dev/deno.lock bench/long_build.ts [seconds]
 *
 * @module
 */
import { runBuild, SHAPES } from "../dev/long_build.ts";
import { ms, row } from "./lib.ts";

const seconds = Number(Deno.args[0] ?? 90);
const item = `40 long build (${seconds} s)`;
for (const shape of SHAPES) {
  const run = await runBuild(shape, seconds);
  if (!/BUILD OK/.test(run.text)) throw new Error(`${shape}: the reply lacks the build's end`);
  row(item, `${shape}: the model's calls`, String(run.modelCalls), "1", run.modelCalls === 1);
  row(item, `${shape}: protocol messages (both ways)`, String(run.messages), "—", true);
  row(item, `${shape}: reply characters`, String(run.replyChars), "—", true);
  row(
    item,
    `${shape}: from the build's end to the client knowing`,
    ms(run.delayMs),
    "≤ 100 ms",
    run.delayMs <= 100,
  );
}
