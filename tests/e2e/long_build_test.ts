/**
 * A scripted agent runs one long build, compressed to 5 s (long enough to
 * become a 2026-07-28 task: they begin after 3 s), in each shape a client
 * speaks for long work (dev/long_build.ts): the reply with the build's end
 * comes from the one call the model made, and the client is told when the
 * build ended (the delay is measured here; its goal is a bench row,
 * bench/long_build.ts).
 *
 * @module
 */
import { runBuild, SHAPES } from "../../dev/long_build.ts";
import { assert, assertMatch } from "../helpers/assert.ts";
import { posixTest } from "../helpers/platform.ts";

for (const shape of SHAPES) {
  posixTest(`a long build in one call: ${shape}`, async () => {
    const run = await runBuild(shape, 5);
    assertMatch(run.text, /^\[id \d+, exited 0\]/);
    assertMatch(run.text, /BUILD OK/);
    assert(run.delayMs >= 0 && Number.isFinite(run.delayMs), `delay ${run.delayMs}`);
    // Told, not polled: the end reached the client in a handful of messages, not one a second.
    assert(run.messages < 20, `${run.messages} messages`);
  });
}
