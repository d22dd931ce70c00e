/**
 * Portal's command line run as a user runs it: `deno run -A main.ts ARGS` in
 * a directory of its own, with a temporary home, database path and registry
 * (see `serverEnv`), its stdout and stderr kept apart.
 *
 * @module
 */
import { endHost, hostPid, MAIN, serverEnv } from "../../dev/portal_client.ts";

/** How a run of the command line ended. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `portal ARGS` in `dir` (its cwd; home, database, registry and runtime
 * directory inside it) to its end, then ends the host it started, if it did
 * (a host that ran before it is the caller's). `entry`: what `deno run -A`
 * runs, main.ts unless told (a build: `["--no-config", "BUILD/main.js"]`).
 */
export async function runCli(
  dir: string,
  args: string[],
  env: Record<string, string> = {},
  entry: string[] = [MAIN],
): Promise<CliRun> {
  const before = hostPid(dir);
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...entry, ...args],
    cwd: dir,
    env: await serverEnv(dir, { env }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (hostPid(dir) !== before) await endHost(dir);
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code, stdout: text(stdout), stderr: text(stderr) };
}

/** Every path under `dir`, relative to it, sorted. */
export async function listTree(dir: string): Promise<string[]> {
  const paths: string[] = [];
  const walk = async (sub: string) => {
    for await (const entry of Deno.readDir(`${dir}/${sub}`)) {
      const path = sub ? `${sub}/${entry.name}` : entry.name;
      paths.push(path);
      if (entry.isDirectory) await walk(path);
    }
  };
  await walk("");
  return paths.sort();
}
