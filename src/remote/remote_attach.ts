/**
 * `portal attach MACHINE:NAME`: a person joins a program on another machine
 * by running `portal attach NAME` there, through the same transport as the
 * tools (ssh with a terminal: `ssh -t`, multiplexed on the same connection).
 * The remote Portal does the rest; Ctrl+] detaches there as here (ssh's own
 * escape is `~.` after Enter). NAME must be an id or a name as the agent's
 * are ({@link processName}): ssh hands the command to the remote shell, so
 * nothing else reaches it (`db1:x;touch f` runs nothing there).
 *
 * @module
 */
import { processName } from "../core/model/schema.ts";
import { runtimeDir } from "../runtime_dir.ts";
import { transportOf } from "./transports.ts";

/** `MACHINE:NAME` split at its last colon (names hold none), or undefined when `target` is local. */
export function remoteTarget(target: string): { machine: string; name: string } | undefined {
  const at = target.lastIndexOf(":");
  return at <= 0 ? undefined : { machine: target.slice(0, at), name: target.slice(at + 1) };
}

/** Runs `portal attach NAME` on MACHINE with this terminal; returns its exit status. */
export async function remoteAttach(
  { machine, name }: { machine: string; name: string },
  env: Record<string, string>,
): Promise<number> {
  if (!/^[1-9]\d{0,15}$/.test(name) && !processName.safeParse(name).success) {
    console.error(
      `portal: ${JSON.stringify(name)} is neither a process id nor a name (1 to 64 ` +
        `letters, digits, '.', '_' or '-'): nothing was run on ${machine}. ` +
        `\`ssh ${machine} portal ps\` lists its processes.`,
    );
    return 1;
  }
  let argv;
  try {
    argv = transportOf(machine, env, runtimeDir(env), { args: ["attach", name], tty: true }).argv;
  } catch (error) {
    console.error(`portal: ${(error as Error).message}`);
    return 1;
  }
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  return (await child.status).code;
}
