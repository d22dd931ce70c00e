/**
 * Finding the program to run on POSIX: the way `execvp` does, but against the
 * child's PATH (the one given at start), so the agent gets "command not found"
 * up front instead of a child that dies with 127.
 *
 * @module
 */
import { libc } from "../../../ffi/libc.ts";
import { C } from "../../../ffi/os_constants.ts";
import { cString } from "../../../ffi/c_strings.ts";
import { PortalError, quote } from "../../errors.ts";
import { statOf } from "../sandbox.ts";

/** PATH when the environment has none (execvp's fallback, without the current directory). */
const DEFAULT_PATH = "/usr/bin:/bin";

/**
 * Finds the program the way `execvp` would, but against the child's PATH:
 * `posix_spawnp` would search the server's own PATH instead. A path
 * `hidden` from the program is passed over as if it were not there, and
 * fails with the same words as a missing one.
 */
export function resolveExecutable(
  command: string,
  env: Record<string, string>,
  cwd: string,
  hidden: (path: string) => boolean = () => false,
): string {
  const pathVar = env.PATH ?? DEFAULT_PATH;
  const absolute = (p: string) => p.startsWith("/") ? p : `${cwd.replace(/\/+$/, "")}/${p}`;
  const found = (path: string) => isExecutableFile(path) && !hidden(path);
  if (command.includes("/")) {
    const path = absolute(command);
    if (found(path)) return path;
    throw new PortalError(
      `Command not found: ${quote(command)} (${quote(path)} is not an executable file). ` +
        "Check the path, or pass a program name to look up in PATH.",
    );
  }
  for (const dir of pathVar.split(":")) {
    const path = `${absolute(dir || ".").replace(/\/+$/, "")}/${command}`;
    if (found(path)) return path;
  }
  const shellHint = /\s/.test(command)
    ? " Commands run directly, not through a shell: put arguments in args, or run sh with " +
      "args ['-c', '…'] for pipelines."
    : "";
  throw new PortalError(
    `Command not found: ${quote(command)}. It is in no directory of the program's PATH ` +
      `(${pathVar}). Pass an absolute path, or set PATH in env.${shellHint}`,
  );
}

/** True for a regular file this process may execute. */
export function isExecutableFile(path: string): boolean {
  return statOf(path)?.isFile === true && libc().access(cString(path), C.X_OK) === 0;
}
