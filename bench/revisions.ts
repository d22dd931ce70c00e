/**
 * MCP 2026-07-28 beside 2025-11-25, in one run (issue 30, item 8):
 * - a python3 step (process_write, PTY) through the SDK v2 client on
 *   2026-07-28 vs the SDK v1 client on 2025-11-25, each against its own
 *   `--no-host` server, steps alternating (goal: p50 at most +0.2 ms); and
 *   the same in raw lines, without a client library: the server's own share;
 * - spawn → first answer through a door with its host running: the reply
 *   to `server/discover` (2026-07-28) and to `initialize` (2025-11-25),
 *   median of 5 (goal < 200 ms);
 * - the size of tools/list on each (goal ≤ 15,000 characters);
 * - HTTP: the server's RSS after 10,000 2026-07-28 requests from 1,000
 *   different clientInfos (goal < 20 MB: no object per client).
 *
 * Run: deno run -A bench/revisions.ts [steps]
 *
 * @module
 */
import { ModernPortal } from "../dev/modern_client.ts";
import { initializeRequest, MAIN, Portal, serverEnv } from "../dev/portal_client.ts";
import { tempDir } from "../dev/temp_dir.ts";
import { waitFor } from "../dev/wait.ts";
import { LISTING_MAX_CHARS } from "../src/mcp/tools/listing.ts";
import { mb, median, ms, procStatus, row } from "./lib.ts";

const STEPS = Number(Deno.args[0] ?? 1000);
const WARMUP = 10;
const MODERN = "2026-07-28";
const meta = (name = "bench") => ({
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name, version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
});

// 1. A python3 step on each revision, alternating.
{
  await using modern = await ModernPortal.start({ noHost: true });
  await using legacyV2 = await ModernPortal.start({ noHost: true, legacy: true });
  await using legacy = await Portal.start({ noHost: true });
  const sides = [
    { name: "2026-07-28 (SDK v2 client)", call: modern.call.bind(modern), times: [] as number[] },
    {
      name: "2025-11-25 (SDK v2 client)",
      call: legacyV2.call.bind(legacyV2),
      times: [] as number[],
    },
    { name: "2025-11-25 (SDK v1 client)", call: legacy.call.bind(legacy), times: [] as number[] },
  ];
  const ids = await Promise.all(sides.map(async (side) =>
    (await side.call("process_start", {
      command: "python3",
      args: ["-q"],
      pty: true,
      wait: "ready",
    })).id
  ));
  for (let i = 0; i < WARMUP + STEPS; i++) {
    for (const [n, side] of sides.entries()) {
      const a = 1000 + i;
      const start = performance.now();
      const reply = await side.call("process_write", { id: ids[n], content: `${a}*7\n` });
      const took = performance.now() - start;
      if (!reply.output.includes(String(a * 7))) throw new Error(`early reply: ${reply.output}`);
      if (i >= WARMUP) side.times.push(took);
    }
  }
  const [ours, theirs] = sides.map((side) => median(side.times));
  // The revision's own cost: the same client library (v2) on both sides, only the protocol differs.
  for (const side of sides) {
    row(
      "30 revisions",
      `python3 step p50, ${side.name}, ${STEPS} steps`,
      ms(median(side.times)),
      "",
      true,
    );
  }
  row(
    "30 revisions",
    "python3 step p50: 2026-07-28 minus 2025-11-25, both through the SDK v2 client (alternating)",
    `${ours - theirs >= 0 ? "+" : ""}${(ours - theirs).toFixed(2)} ms`,
    "≤ +0.2 ms",
    ours - theirs <= 0.2,
  );
  const size = async (list: () => Promise<{ tools: unknown[] }>) =>
    JSON.stringify((await list()).tools).length;
  for (
    const [name, chars] of [
      ["2026-07-28", await size(() => modern.client.listTools())],
      ["2025-11-25", await size(() => legacy.client.listTools())],
    ] as const
  ) {
    row(
      "30 revisions",
      `tools/list size, ${name}`,
      `${chars} characters`,
      `≤ ${LISTING_MAX_CHARS.toLocaleString("en-US")}`,
      chars <= LISTING_MAX_CHARS,
    );
  }
}

// 1b. The same step in raw JSON-RPC lines, alternating: what the server alone adds per revision.
{
  await using dir = await tempDir("portal-bench-revisions-raw-");
  const open = async (modern: boolean) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "--no-host"],
      env: await serverEnv(`${dir.path}/${modern ? "modern" : "legacy"}`),
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const writer = child.stdin.getWriter();
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let pending = "";
    let next = 1;
    const request = async (method: string, params: Record<string, unknown>) => {
      const id = next++;
      const message = {
        jsonrpc: "2.0",
        id,
        method,
        params: modern ? { ...params, _meta: meta() } : params,
      };
      await writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
      for (;;) {
        const end = pending.indexOf("\n");
        if (end >= 0) {
          const answer = JSON.parse(pending.slice(0, end));
          pending = pending.slice(end + 1);
          if (answer.id === id) return answer.result;
          continue;
        }
        const { value, done } = await lines.read();
        if (done) throw new Error("the server ended");
        pending += value;
      }
    };
    if (!modern) await request("initialize", initializeRequest("bench").params);
    return {
      request,
      close: async () => {
        await writer.close();
        await lines.cancel();
        await child.status;
      },
    };
  };
  const sides = [await open(true), await open(false)];
  try {
    const ids = await Promise.all(sides.map(async (side) =>
      (await side.request("tools/call", {
        name: "process_start",
        arguments: { command: "python3", args: ["-q"], pty: true, wait: "ready" },
      })).structuredContent.id
    ));
    const times: number[][] = [[], []];
    for (let i = 0; i < WARMUP + STEPS; i++) {
      for (const [n, side] of sides.entries()) {
        const start = performance.now();
        const reply = await side.request("tools/call", {
          name: "process_write",
          arguments: { id: ids[n], content: `${1000 + i}*7\n` },
        });
        const took = performance.now() - start;
        if (!reply.structuredContent.output.includes(String((1000 + i) * 7))) {
          throw new Error(`early reply: ${reply.structuredContent.output}`);
        }
        if (i >= WARMUP) times[n].push(took);
      }
    }
    const [ours, theirs] = times.map(median);
    row(
      "30 revisions",
      `python3 step p50 in raw lines (no client library), 2026-07-28 ${ms(ours)}, ` +
        `2025-11-25 ${ms(theirs)}: the server's own difference (alternating)`,
      `${ours - theirs >= 0 ? "+" : ""}${(ours - theirs).toFixed(2)} ms`,
      "≤ +0.2 ms",
      ours - theirs <= 0.2,
    );
  } finally {
    for (const side of sides) await side.close();
  }
}

// 2. Spawn → first answer through a door, its host running.
{
  await using dir = await tempDir("portal-bench-revisions-");
  const env = await serverEnv(dir.path);
  const firstAnswer = async (request: unknown, id: number | string): Promise<number> => {
    const started = performance.now();
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN],
      env,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(JSON.stringify(request) + "\n"));
    let text = "";
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) {
      text += decoder.decode(chunk);
      if (text.includes(`"id":${JSON.stringify(id)}`)) break;
    }
    const took = performance.now() - started;
    await writer.close().catch(() => {});
    await child.status;
    return took;
  };
  const discover = { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta() } };
  await firstAnswer(discover, 1); // Starts the host, which stays.
  const runs = { modern: [] as number[], legacy: [] as number[] };
  for (let i = 0; i < 5; i++) {
    runs.modern.push(await firstAnswer(discover, 1));
    runs.legacy.push(await firstAnswer(initializeRequest("bench"), 1));
  }
  for (
    const [name, xs] of [["server/discover (2026-07-28)", runs.modern], [
      "initialize (2025-11-25)",
      runs.legacy,
    ]] as const
  ) {
    row(
      "30 revisions",
      `spawn → ${name} reply through a door, host running (median of 5)`,
      ms(median(xs)),
      "< 200 ms",
      median(xs) < 200,
    );
  }
  const { endHost } = await import("../dev/portal_client.ts");
  await endHost(dir.path);
}

// 3. 10,000 requests of 2026-07-28 from 1,000 clientInfos over HTTP: no object per client.
{
  await using dir = await tempDir("portal-bench-revisions-http-");
  const token = "bench-token";
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "--http", "127.0.0.1:0"],
    env: { ...await serverEnv(dir.path), PORTAL_TOKEN: token },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const decoder = new TextDecoder();
  child.stderr.pipeTo(new WritableStream({ write: (b) => void (stderr += decoder.decode(b)) }));
  try {
    const url = /serving MCP on (http:\S+);/.exec(
      await waitFor("the startup line", () => stderr, {
        until: (text) => /serving MCP on http/.test(text),
        timeoutMs: 30_000,
      }),
    )![1];
    let next = 1;
    const request = async (client: number) => {
      const id = next++;
      const response = await fetch(url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": MODERN,
          "mcp-method": "tools/call",
          "mcp-name": "process_list",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "process_list", arguments: {}, _meta: meta(`client-${client}`) },
        }),
      });
      const body = await response.text();
      if (!response.ok) throw new Error(`${response.status}: ${body}`);
    };
    for (let i = 0; i < 200; i++) await request(i); // Warm what is built once.
    const before = procStatus(child.pid, "VmRSS");
    const started = performance.now();
    for (let i = 0; i < 10_000; i++) await request(i % 1000);
    const took = performance.now() - started;
    const peak = procStatus(child.pid, "VmRSS") - before;
    const settle = performance.now();
    let left = peak;
    while (left >= 20e6 && performance.now() - settle < 60_000) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      left = procStatus(child.pid, "VmRSS") - before;
    }
    row(
      "30 revisions",
      `HTTP server RSS after 10,000 2026-07-28 process_list calls from 1,000 clientInfos ` +
        `(${(took / 10_000).toFixed(2)} ms each)`,
      `+${mb(left)} (+${mb(peak)} at once; ${mb(before)} before)`,
      "< 20 MB",
      left < 20e6,
    );
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
}
