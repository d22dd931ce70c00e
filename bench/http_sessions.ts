/**
 * HTTP sessions that clients abandon (an initialize, then nothing: no
 * DELETE): what 1,000 of them cost the server's memory, one after another
 * as a client that crashes and reconnects in a loop would make them. At
 * most PORTAL_MAX_SESSIONS (64) live, so the rest end to make room; V8
 * returns their memory once the server is idle, which the row waits for (up
 * to a minute) and reports with the peak. Raw `fetch`, so the client's own
 * costs are not in the way; the server's RSS from /proc (Linux).
 *
 * Run: deno run -A bench/http_sessions.ts [sessions]
 */
import { initializeRequest, MAIN, serverEnv } from "../dev/portal_client.ts";
import { tempDir } from "../dev/temp_dir.ts";
import { waitFor } from "../dev/wait.ts";
import { mb, procStatus, row } from "./lib.ts";

const SESSIONS = Number(Deno.args[0] ?? 1000);
const GOAL_BYTES = 40e6;
const TOKEN = "bench-token";

await using dir = await tempDir("portal-bench-http-");
const child = new Deno.Command(Deno.execPath(), {
  args: ["run", "-A", MAIN, "--http", "127.0.0.1:0"],
  env: { ...await serverEnv(dir.path), PORTAL_TOKEN: TOKEN },
  stdin: "null",
  stdout: "null",
  stderr: "piped",
}).spawn();
let stderr = "";
const decoder = new TextDecoder();
child.stderr.pipeTo(new WritableStream({ write: (b) => void (stderr += decoder.decode(b)) }));
try {
  const url = new URL(
    /serving MCP on (http:\S+);/.exec(
      await waitFor("the startup line", () => stderr, {
        until: (text) => /serving MCP on http/.test(text),
        timeoutMs: 30_000,
      }),
    )![1],
  );
  const initialize = initializeRequest("bench");
  const open = async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(initialize),
    });
    await response.text();
    if (!response.ok) throw new Error(`initialize: ${response.status}`);
  };
  for (let i = 0; i < 20; i++) await open(); // warm up what the first sessions build once
  const before = procStatus(child.pid, "VmRSS");
  for (let i = 0; i < SESSIONS; i++) await open();
  const peak = procStatus(child.pid, "VmRSS") - before;
  // V8 gives back what the ended sessions left once the server is idle a while: wait for it.
  const settle = performance.now();
  let left = peak;
  while (left >= GOAL_BYTES && performance.now() - settle < 60_000) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    left = procStatus(child.pid, "VmRSS") - before;
  }
  const ended = (stderr.match(/ session \S+ ends: /g) ?? []).length;
  row(
    "13 http sessions",
    `server RSS after ${SESSIONS} sessions opened and abandoned (initialize, no DELETE; ` +
      `${ended} ended to make room), then idle`,
    `+${mb(left)} ${((performance.now() - settle) / 1000).toFixed(0)} s later ` +
      `(+${mb(peak)} at once; ${mb(before)} before)`,
    `< ${mb(GOAL_BYTES)}`,
    left < GOAL_BYTES,
  );
} finally {
  child.kill("SIGTERM");
  await child.status;
}
