/**
 * Startup: from spawning the server to its reply to `initialize`, median of
 * 5, beside Desktop Commander and terminalcp when they are installed (see
 * /work/shared/bench/peers/: PEERS_DIR, default /work/peers). Goal: < 200 ms.
 *
 * Run: deno run -A bench/startup.ts
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { initializeRequest } from "../dev/portal_client.ts";
import { tempDir } from "../dev/temp_dir.ts";
import { median, ms, row } from "./lib.ts";

const RUNS = 5;
const peers = Deno.env.get("PEERS_DIR") ?? "/work/peers";
await using dir = await tempDir("portal-bench-startup-");

/** Milliseconds from spawn to the initialize reply on stdout. */
async function startup(command: string, args: string[]): Promise<number> {
  const started = performance.now();
  const child = new Deno.Command(command, {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    env: {
      PORTAL_DB_PATH: `${dir.path}/records.db`,
      PORTAL_DATA_DIR: `${dir.path}/data`,
      HOME: dir.path,
    },
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(
    JSON.stringify(initializeRequest("bench")) + "\n",
  ));
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    text += decoder.decode(chunk);
    if (text.includes('"id":1')) break;
  }
  const took = performance.now() - started;
  child.kill("SIGKILL");
  await child.status;
  return took;
}

const main = fileURLToPath(new URL("../main.ts", import.meta.url));
const servers: [string, string, string[]][] = [
  // One process, as the peers are; the door and host rows are bench/host.ts's.
  ["Portal (deno run main.ts --no-host)", Deno.execPath(), ["run", "-A", main, "--no-host"]],
  ["Desktop Commander 0.2.52", "node", [
    `${peers}/dc/node_modules/@wonderwhy-er/desktop-commander/dist/index.js`,
    "--no-onboarding",
  ]],
  ["terminalcp 1.3.3", "node", [
    `${peers}/tcp/node_modules/@mariozechner/terminalcp/dist/index.js`,
    "--mcp",
  ]],
];
await startup(servers[0][1], servers[0][2]); // warm the module cache
const times = new Map<string, number[]>(servers.map(([name]) => [name, []]));
for (let i = 0; i < RUNS; i++) {
  for (const [name, command, args] of servers) {
    if (command === "node" && !(await exists(args[0]))) continue;
    times.get(name)!.push(await startup(command, args));
  }
}
const ours = median(times.get(servers[0][0])!);
for (const [name] of servers) {
  const xs = times.get(name)!;
  if (xs.length === 0) continue;
  const first = name === servers[0][0];
  row(
    "7 startup",
    `spawn → initialize reply: ${name}`,
    ms(median(xs)) + (first ? "" : ` (${(median(xs) / ours).toFixed(1)}× ours)`),
    first ? "< 200 ms" : "(peer)",
    !first || ours < 200,
  );
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
