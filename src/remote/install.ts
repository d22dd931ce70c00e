/**
 * `portal remote install HOST`: puts this Portal on another machine, only
 * when a person asks. A release binary (Portal compiled: its executable is
 * not Deno) is copied through the same ssh as the tools use, to
 * `~/.local/bin/portal` there (written beside, then renamed: a Portal
 * running there keeps its file), and run once (`--version`) to show it
 * works. Portal run by `deno run` has no single file to copy: it says what
 * to install instead, and copies nothing.
 *
 * @module
 */
import { basename } from "node:path";
import { runtimeDir } from "../runtime_dir.ts";
import { sshArgv } from "./ssh_command.ts";

/** What runs there: the copy from stdin, made executable, put in place. */
const PLACE = 'mkdir -p "$HOME/.local/bin" && cat > "$HOME/.local/bin/.portal.new" && ' +
  'chmod 755 "$HOME/.local/bin/.portal.new" && ' +
  'mv "$HOME/.local/bin/.portal.new" "$HOME/.local/bin/portal" && ' +
  '"$HOME/.local/bin/portal" --version';

/** Installs Portal on `host` (or says what to install); the exit status. */
export async function installRemote(host: string, env: Record<string, string>): Promise<number> {
  const executable = Deno.execPath();
  if (/^deno(\.exe)?$/.test(basename(executable))) {
    console.error(
      `portal: this Portal runs under Deno (${Deno.mainModule}), not as a release binary: there ` +
        `is no one file to copy, and nothing was copied. On ${host}, install a release binary ` +
        "as ~/.local/bin/portal, or Deno and a script ~/.local/bin/portal (chmod 755) holding:\n" +
        `  #!/bin/sh\n  exec deno run -A <this checkout's main.ts there> "$@"\n` +
        "then check with: ssh HOST portal --version (or set PORTAL_REMOTE_COMMAND to its path).",
    );
    return 1;
  }
  let argv;
  try {
    argv = sshArgv(host, env, runtimeDir(env), { command: PLACE });
  } catch (error) {
    console.error(`portal: ${(error as Error).message}`);
    return 2;
  }
  const binary = await Deno.open(executable);
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  await binary.readable.pipeTo(child.stdin);
  const { code, stdout } = await child.output();
  const said = new TextDecoder().decode(stdout).trim();
  if (code !== 0) {
    console.error(`portal: copying to ${host} failed (exit ${code}); nothing else was changed.`);
    return 1;
  }
  console.log(
    `${host}: ~/.local/bin/portal is ${said}. If ssh's commands there do not find it ` +
      "(~/.local/bin not on their PATH), set PORTAL_REMOTE_COMMAND=.local/bin/portal.",
  );
  return 0;
}
