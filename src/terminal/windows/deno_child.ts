/**
 * Starting a program on pipes with `Deno.Command`, on Windows. Deno reports
 * Windows exits fully (no signals there); POSIX starts its own children
 * instead (see `posix/pipe_child.ts`).
 *
 * @module
 */
import { PortalError } from "../../errors.ts";
import type { PipeChild } from "../pipe.ts";
import type { ExitInfo, SpawnOptions } from "../terminal.ts";

/** Starts `path` on pipes, in a new process group. Throws {@link PortalError}. */
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
      // A new process group led by the child.
      detached: true,
    }).spawn();
  } catch (error) {
    throw spawnError(opts.command, error);
  }
  return {
    pid: child.pid,
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    status: child.status.then(exitInfo, (): ExitInfo => ({ code: null, signal: null })),
    // Job Objects will tell; until then nothing is known to outlive the program.
    hasLeftovers: () => false,
    endLeftovers: () => Promise.resolve(),
  };
}

function exitInfo(status: Deno.CommandStatus): ExitInfo {
  return status.signal
    ? { code: null, signal: status.signal }
    : { code: status.code, signal: null };
}

function spawnError(command: string, error: unknown): PortalError {
  if (error instanceof Deno.errors.NotFound) {
    return new PortalError(
      `Command not found: "${command}". Give an executable on PATH or an absolute path; ` +
        "commands run directly, not through a shell (for pipes or globbing, start sh -c '…').",
    );
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return new PortalError(`Permission denied running "${command}": is it executable?`);
  }
  return new PortalError(`Could not start "${command}": ${(error as Error).message}`);
}
