/**
 * Other MCP terminal servers, driven the way an agent drives them, so that
 * step latency can be compared in the same run: Desktop Commander 0.2.52
 * (`interact_with_process`: one call, it polls for a prompt itself) and
 * terminalcp 1.3.3 (`stdin` with `\r` as it documents, then `stream` polls).
 * They are looked for in `PEERS_DIR` (default `/work/peers`), as
 * `/work/shared/bench/peers/setup.sh` installs them; a peer that is not
 * there, or fails, is skipped with a note, never failing the bench.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { tempDir } from "../dev/temp_dir.ts";

/** One python3 REPL step as a peer does it: the times and the calls it took. */
export interface PeerRun {
  name: string;
  times: number[];
  calls: number[];
  wrong: number;
}

interface Peer {
  name: string;
  /** The server's entry point under PEERS_DIR. */
  main: string;
  args: string[];
  start(call: Call): Promise<string>;
  /** Sends `expr`, returns the text that came back (the whole answer, or what it gave). */
  step(call: Call, session: string, expr: string, want: string): Promise<string>;
  /** Ends the session and anything of the peer's that would outlive its server. */
  stop(call: Call, session: string): Promise<unknown>;
}

type Call = (name: string, args: Record<string, unknown>) => Promise<string>;

const PEERS: Peer[] = [
  {
    name: "Desktop Commander 0.2.52 (interact_with_process)",
    main: "dc/node_modules/@wonderwhy-er/desktop-commander/dist/index.js",
    args: ["--no-onboarding"],
    async start(call) {
      const text = await call("start_process", { command: "python3 -i", timeout_ms: 5000 });
      return /PID\s*:?\s*(-?\d+)/i.exec(text)![1];
    },
    step: (call, pid, expr) =>
      call("interact_with_process", { pid: Number(pid), input: expr, timeout_ms: 5000 }),
    stop: (call, pid) => call("force_terminate", { pid: Number(pid) }),
  },
  {
    name: "terminalcp 1.3.3 (stdin with \\r, then stream)",
    main: "tcp/node_modules/@mariozechner/terminalcp/dist/index.js",
    args: ["--mcp"],
    async start(call) {
      const id = `bench${Deno.pid}`;
      await call("terminalcp", { args: { action: "start", command: "python3 -i", name: id } });
      return id;
    },
    async step(call, id, expr, want) {
      await call("terminalcp", { args: { action: "stdin", id, data: expr + "\r" } });
      let text = "";
      for (let polls = 0; polls < 500 && !(text.includes(want) && />>> ?$/.test(text)); polls++) {
        text += await call("terminalcp", { args: { action: "stream", id, since_last: true } });
      }
      return text;
    },
    // Its daemon outlives the MCP server by design: stop the session, then the daemon.
    stop: async (call, id) => {
      await call("terminalcp", { args: { action: "stop", id } });
      await call("terminalcp", { args: { action: "kill-server" } });
    },
  },
];

/** Runs `steps` python3 steps through every installed peer; notes say what was skipped. */
export async function runPeers(
  exprs: { expr: string; want: string }[],
): Promise<{ runs: PeerRun[]; notes: string[] }> {
  const dir = Deno.env.get("PEERS_DIR") ?? "/work/peers";
  const runs: PeerRun[] = [];
  const notes: string[] = [];
  for (const peer of PEERS) {
    const main = `${dir}/${peer.main}`;
    try {
      await Deno.stat(main);
    } catch {
      notes.push(`${peer.name}: not installed in ${dir} (run setup.sh, set PEERS_DIR): skipped`);
      continue;
    }
    try {
      runs.push(await runPeer(peer, main, exprs));
    } catch (error) {
      notes.push(`${peer.name}: failed (${(error as Error).message}): skipped`);
    }
  }
  return { runs, notes };
}

async function runPeer(
  peer: Peer,
  main: string,
  exprs: { expr: string; want: string }[],
): Promise<PeerRun> {
  await using home = await tempDir("portal-bench-peer-");
  const transport = new StdioClientTransport({
    command: "node",
    args: [main, ...peer.args],
    // Every server finds the same python3; the peer's files go to a throwaway home.
    env: { ...Deno.env.toObject(), HOME: home.path, PATH: "/usr/local/bin:/usr/bin:/bin" },
    stderr: "ignore",
  });
  const client = new Client({ name: "portal-bench", version: "0.0.0" });
  await client.connect(transport);
  let calls = 0;
  const call: Call = async (name, args) => {
    calls++;
    const result = await client.callTool({ name, arguments: args }, undefined, {
      timeout: 60_000,
    }) as CallToolResult;
    return result.content.map((c: { type: string; text?: string }) => c.text ?? "").join("\n");
  };
  let session: string | undefined;
  try {
    session = await peer.start(call);
    const run: PeerRun = { name: peer.name, times: [], calls: [], wrong: 0 };
    for (const [i, { expr, want }] of exprs.entries()) {
      calls = 0;
      const start = performance.now();
      const text = await peer.step(call, session, expr, want);
      // The first steps warm the peer up, as they do ours.
      if (i < 3) continue;
      run.times.push(performance.now() - start);
      run.calls.push(calls);
      if (!text.includes(want)) run.wrong++;
    }
    return run;
  } finally {
    if (session !== undefined) await peer.stop(call, session).catch(() => {});
    await client.close();
  }
}
