/**
 * A worker for tests/unit/runtime_dir_race_test.ts: for each `{ base, go }`
 * it is sent, it says "ready", waits until `go` (a shared flag) is set, and
 * then says which host directory `runtimeDir` gives for `base/a/b/c/d/e` (or
 * why none): released together, several make the same directories at once.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { runtimeDir } from "../../src/runtime_dir.ts";

self.onmessage = (
  { data: { base, go } }: MessageEvent<{ base: string; go: SharedArrayBuffer }>,
) => {
  self.postMessage("ready");
  Atomics.wait(new Int32Array(go), 0, 0);
  let dir: string;
  try {
    dir = runtimeDir({ XDG_RUNTIME_DIR: `${base}/a/b/c/d/e`, TMPDIR: `${base}/tmp` });
  } catch (error) {
    dir = String(error);
  }
  self.postMessage(dir);
};
