/**
 * `deno task bench`: runs each benchmark script in turn and prints one table,
 * every figure beside its goal (ratios are measured side by side in the same
 * run: this machine is shared and noisy). Each script prints its rows as
 * `ROW {json}` lines; everything else it prints goes to stderr. A script that
 * fails gets a row saying so. About ten minutes.
 *
 * - reads.ts: the read queries at the end of 1 GB and of 1 M records vs 1 MB.
 * - ingest.ts: `cat` of 200 MiB through the server vs a bare reader / the kernel.
 * - responsiveness.ts: tool latency while `yes` floods, with and without CPU hogs.
 * - disk.ts: write_bytes of 1 and 10 chatty PTYs over 60 s.
 * - memory.ts: peak RSS while a program writes 1 GiB on pipes; RSS with 100 and 500 PTYs.
 * - retention.ts: the database file during 60 s of `yes` under the cap.
 * - startup.ts: spawn → initialize reply, beside the peers.
 * - host.ts: initialize through a door (host running, host started), a python3 step through a
 *   door vs --no-host, the host's RSS with 100 kept idle PTYs.
 * - step_latency.ts: one process_write per REPL step (python3, bash, sqlite3), beside peers.
 * - http_sessions.ts: the server's memory after 1,000 abandoned HTTP sessions.
 * - revisions.ts: MCP 2026-07-28 beside 2025-11-25: a python3 step, the first answer through
 *   a door, tools/list, and the HTTP server's memory after 10,000 sessionless requests.
 * - patterns.ts: the slowest expect/prompt search, the refusal of a pattern too big to compile;
 *   ReDoS patterns through the server.
 * - durability.ts: how long before a SIGKILL mid-flood the last committed line was written.
 * - teardown.ts: server SIGKILLed or stdin closed → none of its processes left (Linux).
 * - chatty.ts: a python3 step and process_list beside 200 PTYs printing every 10 ms.
 * - agent_tasks.ts: calls and reply characters of agent sessions (python, gdb, sqlite3, psql,
 *   vim, less, getpass, bash), beside main before issue 16; the size of tools/list.
 * - shell_integration.ts: a remote echo over a throwaway sshd, integrated or not (as root).
 * - watch_flood.ts: a step's p99 while two watch pages follow a flood (Debian's chromium).
 * - watch_latency.ts: from a step's reply to its line on a watching page (Debian's chromium).
 * - app_view.ts: a program's line to the terminal view (an MCP App) through an AppBridge host,
 *   and the server's CPU while a view polls an idle program (Debian's chromium).
 * - stalled_readers.ts: the host's RSS and another client's step p99 beside a stalled attach
 *   terminal on a flood, 200 unread 1 MB replies, and a 60 MiB attach frame.
 * - policy.ts: a start and a python3 step (PTY, pipes) under a policy (bubblewrap) vs without,
 *   two clients of one host, in pairs, in blocks of new programs (Linux).
 * - remote_install.ts: portal remote install on loopback (root): its time, the bytes it copied,
 *   a second install (nothing copied).
 * - read_search.ts: process_read finding the one error line in 200 MB stored, then the lines
 *   around it.
 *
 * Also, run alone: pty_throughput.ts (backend and keystroke latency),
 * many_ptys.ts, profile.ts (a --cpu-prof summary of the server under a flood).
 *
 * `deno task bench --write` also puts the table into docs/performance.md,
 * between its markers, with when, where and at which commit it ran: that page
 * is regenerated, never edited by hand.
 */
import type { Row } from "./lib.ts";

const scripts = [
  "reads.ts",
  "ingest.ts",
  "responsiveness.ts",
  "disk.ts",
  "memory.ts",
  "retention.ts",
  "startup.ts",
  "host.ts",
  "step_latency.ts",
  "patterns.ts",
  "durability.ts",
  "http_sessions.ts",
  "revisions.ts",
  "teardown.ts",
  "chatty.ts",
  "agent_tasks.ts",
  "shell_integration.ts",
  "watch_flood.ts",
  "watch_latency.ts",
  "app_view.ts",
  "stalled_readers.ts",
  "policy.ts",
  "remote.ts",
  "remote_install.ts",
  "read_search.ts",
];
const LOCK = new URL("../dev/deno.lock", import.meta.url).pathname;
const rows: Row[] = [];
let failed = false;
for (const script of scripts) {
  console.error(`== ${script}`);
  const { success, stdout } = await new Deno.Command(Deno.execPath(), {
    // The bench's packages are in dev/deno.lock; deno.lock holds only the server's.
    args: ["run", "-A", `--lock=${LOCK}`, new URL(script, import.meta.url).pathname],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  for (const line of new TextDecoder().decode(stdout).split("\n")) {
    if (line.startsWith("ROW ")) rows.push(JSON.parse(line.slice(4)));
    else if (line.trim()) console.error(line);
  }
  if (!success) {
    rows.push({
      item: script,
      measure: "the script failed (see its output)",
      figure: "—",
      goal: "—",
      met: false,
    });
  }
  failed ||= !success;
}
const cell = (text: string) => text.replaceAll("|", "\\|");
const table = [
  "| item | measure | figure | goal | met |",
  "| --- | --- | --- | --- | --- |",
  ...rows.map((r) =>
    `| ${[r.item, r.measure, r.figure, r.goal].map(cell).join(" | ")} | ${
      r.met ? "yes" : "**no**"
    } |`
  ),
].join("\n");
console.log(table);
if (Deno.args.includes("--write")) await writePage(table);
if (failed) Deno.exit(1);

/** Puts `table` into docs/performance.md between its markers, with where and when it ran. */
async function writePage(table: string): Promise<void> {
  const page = new URL("../docs/performance.md", import.meta.url);
  const text = await Deno.readTextFile(page);
  const [begin, end] = ["<!-- bench table: begin -->", "<!-- bench table: end -->"];
  const start = text.indexOf(begin);
  const stop = text.indexOf(end);
  if (start < 0 || stop < start) throw new Error(`docs/performance.md has no ${begin} … ${end}`);
  const git = new Deno.Command("git", { args: ["rev-parse", "--short", "HEAD"], stdout: "piped" });
  const commit = new TextDecoder().decode((await git.output()).stdout).trim();
  const load = (await Deno.readTextFile("/proc/loadavg").catch(() => "? ")).split(" ")[0];
  const when = new Date().toISOString().slice(0, 16).replace("T", " ");
  const where = `${navigator.hardwareConcurrency} cores, ${Deno.build.os}, load ${load} at the end`;
  const made = `Made by \`deno task bench --write\` at ${commit}, ${when} UTC (${where}).`;
  await Deno.writeTextFile(
    page,
    `${text.slice(0, start)}${begin}\n\n${made}\n\n${table}\n\n${text.slice(stop)}`,
  );
  await new Deno.Command(Deno.execPath(), { args: ["fmt", page.pathname] }).output();
}
