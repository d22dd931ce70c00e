/**
 * Programs on other machines (issue 31), over a throwaway sshd on loopback
 * (dev/remote_machine.ts; root only): a python3 step through the other
 * machine's Portal (`machine`) beside the same step typed into `ssh -tt … python3`
 * in a local PTY (no Portal there: readiness falls back to a quiet period);
 * then 10 machines (aliases of that one, each its own ssh connection) × 5
 * pythons driven round-robin by one client: ssh connections counted, and the
 * step's median beside one machine's. First (no sshd needed), a hostile remote
 * (dev/hostile_remote.ts) answering with a 200 MB line: how long another
 * client's calls take meanwhile, how much the host grows, when the error comes.
 *
 * Run: deno run -A --lock=dev/deno.lock bench/remote.ts [steps]
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { pidsByCommandLine } from "../dev/process_table.ts";
import { hostPid, Portal } from "../dev/portal_client.ts";
import { remoteMachine } from "../dev/remote_machine.ts";
import { sshdAvailable } from "../dev/sshd.ts";
import { mb, median, ms, procStatus, row } from "./lib.ts";

const STEPS = Number(Deno.args[0] ?? 20);
const MACHINES = 10;
const PER_MACHINE = 5;

/** A hostile remote's 200 MB line: the other client's slowest call, the host's growth, the error. */
async function hostileLine(): Promise<void> {
  const script = fileURLToPath(new URL("../dev/hostile_remote.ts", import.meta.url));
  await using portal = await Portal.start({
    env: { PORTAL_MACHINE_evil: `${Deno.execPath()} run --no-config --quiet ${script} flood` },
  });
  await using other = await Portal.start({ dir: portal.dir });
  await other.call("process_list");
  const host = hostPid(portal.dir)!;
  const before = procStatus(host, "VmRSS");
  const began = performance.now();
  let settled = false;
  const failing = portal.fail("process_start", { command: "true", machine: "evil" })
    .finally(() => settled = true);
  const took: number[] = [];
  let peak = before;
  while (!settled) {
    const call = performance.now();
    await other.call("process_list");
    took.push(performance.now() - call);
    peak = Math.max(peak, procStatus(host, "VmRSS"));
  }
  const message = await failing;
  const errorMs = performance.now() - began;
  // Sampled at each call (VmHWM would hold the host's start-up peak too).
  const grew = peak - before;
  const slowest = Math.max(...took);
  row(
    "37 remote",
    `hostile remote's 200 MB line: other client's slowest of ${took.length} calls; host growth; error`,
    `${ms(slowest)}; ${mb(grew)}; after ${ms(errorMs)}`,
    "< 100 ms; < 100 MB; < 15 s",
    slowest < 100 && grew < 100e6 && errorMs < 15_000 && /line over/.test(message),
  );
}
if (Deno.build.os === "linux") await hostileLine();

if (Deno.build.os !== "linux" || !sshdAvailable()) {
  row("31 remote", "steps on another machine", "not run: needs root and sshd", "-", true);
  Deno.exit(0);
}

/** The median of `count` python3 steps, each to the next of `ids` in turn (after 3 unmeasured). */
async function steps(portal: Portal, ids: number[], count: number): Promise<number> {
  const took: number[] = [];
  for (let i = 0; i < count + 3; i++) {
    const began = performance.now();
    const reply = await portal.call("process_write", {
      id: ids[i % ids.length],
      content: `${1000 + i}*7\n`,
    });
    const elapsed = performance.now() - began;
    if (!reply.output.includes(String((1000 + i) * 7))) throw new Error(reply.output);
    if (i >= 3) took.push(elapsed);
  }
  return median(took);
}

/** The ssh processes that hold a connection (ControlMaster's `[mux]`) for sockets in `dir`. */
function masters(dir: string): number {
  return pidsByCommandLine((cmdline) =>
    cmdline.includes("[mux]") && cmdline.includes(`${dir}/run/portal/ssh-`)
  ).length;
}

await using machine = await remoteMachine("m0");
const aliases = Array.from({ length: MACHINES }, (_, i) => `m${i}`);
const config = await Deno.readTextFile(machine.configFile);
await Deno.writeTextFile(
  machine.configFile,
  config.replace("Host m0", `Host ${aliases.join(" ")}`),
);
await using portal = await Portal.start({ env: { PORTAL_SSH_COMMAND: machine.sshCommand } });
const python = { command: "python3", args: ["-q"], pty: true, wait: "ready" };

const one = await portal.call("process_start", { ...python, machine: "m0" });
const remote = await steps(portal, [one.id], STEPS);
const viaSsh = await portal.call("process_start", {
  ...python,
  command: "ssh",
  args: ["-F", machine.configFile, "-tt", "m0", "python3", "-q"],
});
const overSsh = await steps(portal, [viaSsh.id], STEPS);
row(
  "31 remote",
  `python3 step on another machine, p50 of ${STEPS}: machine (its Portal) vs ssh in a local PTY`,
  `${ms(remote)} vs ${ms(overSsh)}`,
  "machine < 50 ms",
  remote < 50,
);

const ids: number[] = [];
for (const alias of aliases) {
  for (let i = 0; i < PER_MACHINE; i++) {
    ids.push((await portal.call("process_start", { ...python, machine: alias })).id);
  }
}
const connections = masters(portal.dir);
// One machine's again, now that every link is warm, next to the round-robin.
const single = await steps(portal, [one.id], STEPS);
const many = await steps(portal, ids, MACHINES * PER_MACHINE * 2);
row(
  "31 remote",
  `${MACHINES} machines × ${PER_MACHINE} pythons round-robin: ssh connections; step p50 vs one machine's`,
  `${connections} connections; ${ms(many)} vs ${ms(single)}`,
  `${MACHINES} connections; within 2 ms`,
  connections === MACHINES && many - single <= 2,
);
await portal.call("process_kill_all");
