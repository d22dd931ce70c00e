/**
 * `portal remote install MACHINE` on loopback (dev/remote_machine.ts, a bare
 * machine: no Portal, no Deno on its PATH; root only), run from this clone
 * as a person runs it: the time of the whole command (making the build
 * included), the bytes it sent through ssh, then a second install (nothing
 * to copy) and its time.
 *
 * Run: deno run -A --lock=dev/deno.lock bench/remote_install.ts
 *
 * @module
 */
import { MAIN } from "../dev/portal_client.ts";
import { remoteMachine } from "../dev/remote_machine.ts";
import { sshdAvailable } from "../dev/sshd.ts";
import { tempDir } from "../dev/temp_dir.ts";
import { mb, row } from "./lib.ts";

if (Deno.build.os !== "linux" || !sshdAvailable()) {
  row("39 remote install", "portal remote install", "not run: needs root and sshd", "-", true);
  Deno.exit(0);
}

await using dir = await tempDir("portal-bench-install-");
await Deno.chmod(dir.path, 0o755);
// Its PATH: the system's, which has this machine's Deno in /usr/bin: a directory of links without it.
const path = `${dir.path}/path`;
await Deno.mkdir(path);
for (const from of ["/usr/local/bin", "/usr/bin", "/bin"]) {
  for (const { name } of Deno.readDirSync(from)) {
    if (name === "deno") continue;
    await Deno.symlink(`${from}/${name}`, `${path}/${name}`).catch(() => {});
  }
}
await using machine = await remoteMachine("installbench", { bare: { path } });

/** Runs `portal remote install` to its end: seconds, and what it printed. */
async function install(): Promise<{ seconds: number; said: string }> {
  const began = performance.now();
  const { success, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "remote", "install", machine.alias],
    env: { PORTAL_SSH_COMMAND: machine.sshCommand, XDG_RUNTIME_DIR: `${dir.path}/run` },
  }).output();
  const said = new TextDecoder().decode(stdout).trim();
  if (!success) throw new Error(`install failed: ${new TextDecoder().decode(stderr)}`);
  return { seconds: (performance.now() - began) / 1000, said };
}

const first = await install();
const copied = Number(/([\d.]+) MB copied/.exec(first.said)?.[1] ?? NaN) * 1e6;
const second = await install();
row(
  "39 remote install",
  "first install (build + Deno, loopback)",
  `${first.seconds.toFixed(1)} s`,
  "< 30 s",
  first.seconds < 30,
);
row(
  "39 remote install",
  "bytes copied through ssh (gzipped)",
  mb(copied),
  "< 60 MB",
  copied < 60e6,
);
row(
  "39 remote install",
  "second install: nothing copied",
  `${second.seconds.toFixed(1)} s`,
  "nothing copied",
  /nothing copied/.test(second.said),
);
