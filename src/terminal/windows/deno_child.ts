/**
 * The pipe backend on Windows ({@link windowsPipes}): a program started with
 * `Deno.Command` and put in a Job Object of its own right after (job.ts):
 * its tree is that job, which SIGTERM and SIGKILL terminate. Deno reports
 * Windows exits fully (no signals there); POSIX starts its own children
 * instead (see `posix/pipe_child.ts`). Commands are found through the
 * child's PATH and PATHEXT (batch files too: `Deno.Command` runs them
 * through cmd.exe with cmd's quoting). Programs on pipes share no console
 * with anyone, so no console interrupt (SIGINT, SIGBREAK, CTRL_C_EVENT) can
 * reach them. There is no /proc: whether a program waits for input is never
 * known here (waits fall back to silence and prompt-like lines).
 *
 * @module
 */
import { PortalError, quote } from "../../errors.ts";
import { SIGNALS } from "../../signals.ts";
import type { PipeChild, PipePlatform } from "../pipe.ts";
import type { ExitInfo, SpawnOptions } from "../terminal.ts";
import { findWindowsProgram } from "./executable.ts";
import { type AdoptedTree, adoptProcess } from "./job.ts";

/** See the module doc. */
export const windowsPipes: PipePlatform = {
  findExecutable: (command, env, cwd) => findWindowsProgram(command, env, cwd),
  spawn: (launch, opts) => spawnDenoChild(launch.path, opts, launch.env),
  breakSignal: "SIGBREAK",
};

/** Starts `path` on pipes in a job of its own. Throws {@link PortalError}. */
function spawnDenoChild(
  path: string,
  opts: SpawnOptions,
  env: Record<string, string>,
): PipeChild {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(path, {
      args: opts.args,
      cwd: opts.cwd,
      env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
  } catch (error) {
    throw spawnError(opts.command, error);
  }
  let tree: AdoptedTree;
  try {
    tree = adoptProcess(child.pid);
  } catch (error) {
    abandon(child);
    throw new PortalError(`Could not start ${opts.command}: ${(error as Error).message}.`);
  }
  return {
    pid: child.pid,
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    // Deno's streams hide their handles: whether a pipe holds bytes is not known here.
    outputPending: () => false,
    status: child.status.then(exitInfo, (): ExitInfo => ({ code: null, signal: null })),
    input: {
      beforeInput() {},
      state: () => ({ activity: "unknown", secret: false, taken: false }),
      close() {},
    },
    signal(signo) {
      if (signo !== SIGNALS.SIGTERM && signo !== SIGNALS.SIGKILL) {
        throw new Error(
          "on Windows a program on pipes has no console, so no console interrupt can reach " +
            "it; start it with pty: true to interrupt it, or end it with SIGTERM or process_kill",
        );
      }
      tree.terminate();
    },
    // The job is closed when the program ends, which ends whatever it left running.
    hasLeftovers: () => false,
    endLeftovers: () => Promise.resolve(),
    release: () => tree.release(),
  };
}

/** Ends a child that cannot be managed, and lets go of its pipes. */
function abandon(child: Deno.ChildProcess): void {
  try {
    child.kill("SIGKILL");
  } catch { /* already gone */ }
  child.stdin.close().catch(() => {});
  child.stdout.cancel().catch(() => {});
  child.stderr.cancel().catch(() => {});
}

function exitInfo(status: Deno.CommandStatus): ExitInfo {
  return status.signal
    ? { code: null, signal: status.signal }
    : { code: status.code, signal: null };
}

function spawnError(command: string, error: unknown): PortalError {
  if (error instanceof Deno.errors.NotFound) {
    return new PortalError(
      `Command not found: ${quote(command)}. Give an executable on PATH or an absolute path; ` +
        "commands run directly, not through a shell (for pipes or globbing, start sh -c '…').",
    );
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return new PortalError(`Permission denied running "${command}": is it executable?`);
  }
  return new PortalError(`Could not start "${command}": ${(error as Error).message}`);
}
