/**
 * `deno task bench`: runs every benchmark script in turn and prints its figures.
 *
 * - pty_throughput.ts: the PTY backend's output rate for `cat` of 200 MB beside
 *   the kernel's own (`script`), and write → echo latency of one keystroke.
 * - server_ingest.ts: process_start → exited through the whole server (pipes and PTY).
 * - many_ptys.ts: tool latency with 100 live terminals.
 * - step_latency.ts: one process_write per REPL step (python3, bash, sqlite3), beside peers.
 */
const scripts = ["pty_throughput.ts", "server_ingest.ts", "many_ptys.ts", "step_latency.ts"];

let failed = false;
for (const script of scripts) {
  console.log(`\n== ${script}`);
  const { success } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(script, import.meta.url).pathname],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  failed ||= !success;
}
if (failed) Deno.exit(1);
