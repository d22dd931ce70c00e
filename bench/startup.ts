/**
 * Startup: from spawning the server to its reply to `initialize`, median of
 * 5, beside Desktop Commander and terminalcp when they are installed (see
 * /work/shared/bench/peers/: PEERS_DIR, default /work/peers). Goal: < 200 ms.
 * The self-contained build (dev/build.ts) beside `deno run main.ts`: with
 * Deno's cache as each leaves it, and with an empty one (the build's first
 * start: nothing to download). Goal: no slower than main.ts.
 *
 * Run: deno run -A bench/startup.ts
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { initializeRequest } from "../dev/portal_client.ts";
import { tempDir } from "../dev/temp_dir.ts";
import { median, ms, row } from "./lib.ts";
import { build } from "../dev/build.ts";

const RUNS = 5;
const peers = Deno.env.get("PEERS_DIR") ?? "/work/peers";
await using dir = await tempDir("portal-bench-startup-");

/** Milliseconds from spawn to the initialize reply on stdout (`env` added). */
async function startup(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<number> {
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
      ...env,
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
/** Every registry Deno could reach, at a closed port: the build needs none. */
const NO_REGISTRY = {
  NPM_CONFIG_REGISTRY: "http://127.0.0.1:9/",
  HTTPS_PROXY: "http://127.0.0.1:9",
  HTTP_PROXY: "http://127.0.0.1:9",
};
const built = `${dir.path}/build`;
await build(built);
const bundle = ["run", "-A", "--no-config", `${built}/main.js`, "--no-host"];
const servers: [string, string, string[]][] = [
  // One process, as the peers are; the door and host rows are bench/host.ts's.
  ["Portal (deno run main.ts --no-host)", Deno.execPath(), ["run", "-A", main, "--no-host"]],
  ["Portal's build (deno run main.js --no-host)", Deno.execPath(), bundle],
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
await startup(servers[1][1], servers[1][2]);
const times = new Map<string, number[]>(servers.map(([name]) => [name, []]));
const empty: number[] = [];
for (let i = 0; i < RUNS; i++) {
  for (const [name, command, args] of servers) {
    if (command === "node" && !(await exists(args[0]))) continue;
    times.get(name)!.push(await startup(command, args));
  }
  const cache = `${dir.path}/deno-dir-${i}`;
  empty.push(await startup(Deno.execPath(), bundle, { DENO_DIR: cache, ...NO_REGISTRY }));
  await Deno.remove(cache, { recursive: true });
}
const ours = median(times.get(servers[0][0])!);
for (const [name] of servers) {
  const xs = times.get(name)!;
  if (xs.length === 0) continue;
  const first = name === servers[0][0];
  if (name === servers[1][0]) {
    row(
      "7 startup",
      `spawn → initialize reply: ${name}`,
      ms(median(xs)),
      "≤ main.ts",
      median(xs) <= ours,
    );
    row(
      "7 startup",
      "spawn → initialize reply: Portal's build, empty DENO_DIR, no registry",
      ms(median(empty)),
      "< main.ts's first start (a 13 s download)",
      median(empty) < 13_000,
    );
    continue;
  }
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
