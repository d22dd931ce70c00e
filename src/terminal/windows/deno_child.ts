/**
 * Starting a program on pipes with `Deno.Command`, on Windows, and putting it
 * in a Job Object of its own right after (job.ts): its tree is that job.
 * Deno reports Windows exits fully (no signals there); POSIX starts its own
 * children instead (see `posix/pipe_child.ts`).
 *
 * @module
 */
import { PortalError, quote } from "../../errors.ts";
import { SIGNALS } from "../../signals.ts";
import type { PipeChild } from "../pipe.ts";
import type { ExitInfo, SpawnOptions } from "../terminal.ts";
import { type AdoptedTree, adoptProcess } from "./job.ts";

/** Starts `path` on pipes in a job of its own. Throws {@link PortalError}. */
export function spawnDenoChild(
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
