/**
 * Shell integration's figures. Over ssh (a throwaway sshd on 127.0.0.1, as
 * root): one `echo 42` step through Portal, to the reply that holds `42` and
 * the remote prompt, in a session integrated with `integrate: true` and, in
 * the same run, interleaved, in one without (where only a quiet period after
 * a prompt-like line can end the wait). And locally, the bash step with and
 * without integration (its hooks fork nothing: the goal is no cost).
 *
 * Run: deno run -A bench/shell_integration.ts [steps]
 *
 * @module
 */
import { type Json, Portal } from "../dev/portal_client.ts";
import { sshdAvailable, startSshd } from "../dev/sshd.ts";
import { median, ms, row } from "./lib.ts";

const STEPS = Number(Deno.args[0] ?? 30);
const WARMUP = 3;
const ratio = (a: number, b: number) => `${(a / b).toFixed(a / b < 10 ? 2 : 0)}×`;

/** Times one `echo` step per session, the sessions taking turns; the p50 of each. */
async function interleaved(
  portal: Portal,
  ids: number[],
): Promise<{ p50: number[]; wrong: number }> {
  const times = ids.map(() => [] as number[]);
  let wrong = 0;
  for (let i = 0; i < WARMUP + STEPS; i++) {
    for (const [k, id] of ids.entries()) {
      const want = String(4200 + i);
      const start = performance.now();
      const reply: Json = await portal.call("process_write", { id, content: `echo ${want}\n` });
      const elapsed = performance.now() - start;
      if (!reply.output.includes(`${want}\n`) || !/\$ $/.test(reply.output)) wrong++;
      if (i >= WARMUP) times[k].push(elapsed);
    }
  }
  return { p50: times.map(median), wrong };
}

async function overSsh(): Promise<void> {
  if (!sshdAvailable()) {
    row("shell integration", "remote echo over ssh", "skipped (needs root and sshd)", "—", true);
    return;
  }
  await using sshd = await startSshd();
  await using portal = await Portal.start();
  const ids: number[] = [];
  for (const integrate of [true, false]) {
    const { id } = await portal.call("process_start", {
      command: "ssh",
      args: sshd.sshArgs,
      pty: true,
      wait: "ready",
      wait_ms: 20_000,
    });
    await portal.call("process_write", {
      id,
      secret: sshd.password,
      keys: ["Enter"],
      wait_ms: 20_000,
    });
    if (integrate) {
      const reply = await portal.call("process_write", { id, integrate: true });
      if (reply.shell_integration !== "active") throw new Error("integration did not start");
    }
    ids.push(id);
  }
  const { p50: [integrated, quiet], wrong } = await interleaved(portal, ids);
  row(
    "shell integration",
    `remote echo over ssh, one process_write: p50 integrated vs not (quiet_ms 300), ${STEPS} ` +
      "steps each, interleaved",
    `${ms(integrated)} vs ${ms(quiet)} (${ratio(quiet, integrated)} faster), ${wrong} wrong`,
    "integrated p50 < 100 ms, 0 wrong",
    integrated < 100 && wrong === 0,
  );
}

async function local(): Promise<void> {
  await using portal = await Portal.start();
  const ids: number[] = [];
  for (const shell_integration of [true, false]) {
    const { id } = await portal.call("process_start", {
      command: "bash",
      args: ["--norc", "--noprofile", "-i"],
      pty: true,
      env: { PS1: "$ " },
      wait: "ready",
      shell_integration,
    });
    ids.push(id);
  }
  const { p50: [integrated, plain], wrong } = await interleaved(portal, ids);
  row(
    "shell integration",
    `local bash, one process_write: p50 integrated vs shell_integration: false, ${STEPS} steps each`,
    `${ms(integrated)} vs ${ms(plain)} (${ratio(integrated, plain)}), ${wrong} wrong`,
    "≤ 1.2×, 0 wrong",
    integrated <= plain * 1.2 && wrong === 0,
  );
}

await overSsh();
await local();
