/**
 * Where the server's time goes: runs it with `--cpu-prof` while a program
 * floods (`cat FILE` to its end, or `yes` for a few seconds with
 * process_inspect every 20 ms beside it), or while python3 answers one
 * process_write after another (`step`, a number of steps), or beside 200
 * programs each printing a line every 10 ms (`chatty`, a perl loop that does
 * not fork, for a few seconds),
 * then prints the functions with the most self time and the share per module.
 *
 * Run: deno run -A bench/profile.ts (cat|yes|step|chatty) (pipes|pty) [MiB, seconds or steps]
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fileURLToPath } from "node:url";
import { tempDir } from "../dev/temp_dir.ts";
import { delay } from "../src/async.ts";
import { waitFor } from "../dev/wait.ts";
import { dataFile, ms, percentile } from "./lib.ts";

const [program = "cat", backend = "pipes", size = "200"] = Deno.args;
const pty = backend === "pty";
/** How many chatty programs (`chatty`): PORTAL_PROFILE_PROGRAMS, default 200. */
const CHATTY = Number(Deno.env.get("PORTAL_PROFILE_PROGRAMS") ?? 200);
await using dir = await tempDir("portal-profile-");
await using data = await dataFile(program === "cat" ? Number(size) : 1);
const transport = new StdioClientTransport({
  command: Deno.execPath(),
  args: [
    "run",
    "-A",
    "--cpu-prof",
    `--cpu-prof-dir=${dir.path}`,
    fileURLToPath(new URL("../main.ts", import.meta.url)),
    "--no-host", // The profile is of the process that runs the programs, not of a door.
  ],
  env: {
    ...Deno.env.toObject(),
    PORTAL_DB_PATH: `${dir.path}/records.db`,
    PORTAL_DATA_DIR: `${dir.path}/data`,
    PORTAL_MAX_OUTPUT_BYTES: program === "cat"
      ? "0"
      : Deno.env.get("PORTAL_MAX_OUTPUT_BYTES") ?? "",
  },
  stderr: "inherit",
});
const client = new Client({ name: "portal-profile", version: "0" });
await client.connect(transport);
// deno-lint-ignore no-explicit-any
const call = async (name: string, args: Record<string, unknown>): Promise<any> =>
  (await client.callTool({ name, arguments: args })).structuredContent;

const started = performance.now();
if (program === "cat") {
  const { id } = await call("process_start", { command: "cat", args: [data.path], pty });
  while ((await call("process_inspect", { id })).status === "running") await delay(5);
  console.log(`${backend}: ${size} MiB ingested in ${ms(performance.now() - started)}`);
  if (pty) {
    const screen = performance.now();
    await call("process_screen", { id });
    console.log(`first process_screen: ${ms(performance.now() - screen)}`);
  }
} else if (program === "chatty") {
  for (let i = 0; i < CHATTY; i++) {
    const script = '$| = 1; while (1) { print "tick\\n"; select(undef, undef, undef, 0.01) }';
    await call("process_start", { command: "perl", args: ["-e", script], pty });
  }
  await delay(Number(size) * 1000);
  console.log(`${CHATTY} chatty programs (${backend}) for ${size} s`);
  await call("process_kill_all", {});
} else if (program === "step") {
  const args = pty ? ["-q"] : ["-q", "-i"];
  const { id } = await call("process_start", { command: "python3", args, pty, wait: "ready" });
  const times: number[] = [];
  for (let i = 0; i < Number(size); i++) {
    const t = performance.now();
    await call("process_write", { id, content: `${1000 + i}*7\n` });
    times.push(performance.now() - t);
  }
  console.log(
    `python3 (${backend}) steps: p50 ${ms(percentile(times, 0.5))}, p95 ${
      ms(percentile(times, 0.95))
    }, ${times.length} steps in ${ms(performance.now() - started)}`,
  );
  await call("process_kill", { id });
} else {
  const { id: idle } = await call("process_start", { command: "sleep", args: ["100"] });
  await call("process_start", { command: "yes", args: ["flood line of text"], pty });
  const times: number[] = [];
  while (performance.now() - started < Number(size) * 1000) {
    const t = performance.now();
    await call("process_inspect", { id: idle });
    times.push(performance.now() - t);
    await delay(20 - (performance.now() - t));
  }
  console.log(
    `process_inspect during ${backend} yes: p99 ${ms(percentile(times, 0.99))}, max ${
      ms(Math.max(...times))
    }`,
  );
  await call("process_kill_all", {});
}
await client.close();
// The server writes its profiles as it exits (one per thread: the Workers' first, as they
// stop), which takes a while on a busy machine: its main thread's is the one that ran main.ts.
// deno-lint-ignore no-explicit-any
const readProfiles = (): any[] =>
  [...Deno.readDirSync(dir.path)].filter((e) => e.name.endsWith(".cpuprofile")).flatMap((e) => {
    try {
      return [JSON.parse(Deno.readTextFileSync(`${dir.path}/${e.name}`))];
    } catch {
      return []; // Still being written.
    }
  });
// deno-lint-ignore no-explicit-any
const ranMain = (p: any) => p.nodes.some((n: any) => n.callFrame.url?.endsWith("/main.ts"));
// deno-lint-ignore no-explicit-any
const profiles: any[] = await waitFor("the server's CPU profile", readProfiles, {
  until: (all) => all.some(ranMain),
  timeoutMs: 30_000,
});
profiles.sort((a, b) => Number(ranMain(b)) - Number(ranMain(a)));
for (const [n, profile] of profiles.entries()) {
  summarize(profile, n === 0 ? "server's main thread" : `a Worker of the server (${n})`);
}

// deno-lint-ignore no-explicit-any
function summarize(profile: any, thread: string): void {
  // deno-lint-ignore no-explicit-any
  const frames = new Map<number, any>(profile.nodes.map((n: any) => [n.id, n.callFrame]));
  const parents = new Map<number, number>();
  // deno-lint-ignore no-explicit-any
  for (const n of profile.nodes as any[]) for (const c of n.children ?? []) parents.set(c, n.id);
  /** The nearest JS function above a native frame (an op says little without its caller). */
  const callerOf = (id: number): string => {
    for (let at = parents.get(id); at !== undefined; at = parents.get(at)) {
      const { functionName, url } = frames.get(at);
      if (url) return ` ← ${functionName || "(anonymous)"} (${url.split("/").at(-1)})`;
    }
    return "";
  };
  const self = new Map<string, number>();
  const perModule = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id: number, i: number) => {
    const frame = frames.get(id);
    const dt = profile.timeDeltas[i] ?? 0;
    const url: string = frame.url ?? "";
    const module = url.includes("@xterm")
      ? "@xterm/headless"
      : url.includes("@modelcontextprotocol")
      ? "MCP SDK"
      : url.includes("zod")
      ? "zod"
      : url
      ? url.split("/").at(-1)!
      : frame.functionName;
    const name = `${frame.functionName || "(anonymous)"} (${url.split("/").at(-1) || "native"})` +
      (url || frame.functionName.startsWith("(") ? "" : callerOf(id));
    self.set(name, (self.get(name) ?? 0) + dt);
    perModule.set(module, (perModule.get(module) ?? 0) + dt);
    total += dt;
  });
  const top = (m: Map<string, number>, n: number) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, t]) =>
      `  ${(100 * t / total).toFixed(1).padStart(5)}%  ${k}`
    ).join("\n");
  console.log(
    `${thread}: CPU profile, ${(total / 1e6).toFixed(2)} s sampled; by function (self time):`,
  );
  console.log(top(self, 20));
  console.log("by module:");
  console.log(top(perModule, 8));
}
