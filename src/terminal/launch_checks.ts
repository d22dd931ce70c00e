/**
 * What must hold before a program is started, checked up front so the agent
 * gets a clear error instead of a child that dies with 127: the working
 * directory exists, and (on POSIX) the command names an executable, found the
 * way `execvp` does but against the child's PATH (the one given at start), not
 * the server's.
 *
 * @module
 */
import { C, cString, libc } from "../../ffi/libc.ts";
import { PortalError } from "../errors.ts";
import { TERMINAL_SIZE } from "../limits.ts";

/** PATH when the environment has none (execvp's fallback, without the current directory). */
const DEFAULT_PATH = "/usr/bin:/bin";

/**
 * Finds the program the way `execvp` would, but against the child's PATH:
 * `posix_spawnp` would search the server's own PATH instead.
 */
export function resolveExecutable(
  command: string,
  pathVar: string | undefined,
  cwd: string,
): string {
  pathVar ??= DEFAULT_PATH;
  if (command === "") throw new PortalError("The command is empty. Pass a program to run.");
  const absolute = (p: string) => p.startsWith("/") ? p : `${cwd.replace(/\/+$/, "")}/${p}`;
  if (command.includes("/")) {
    const path = absolute(command);
    if (isExecutableFile(path)) return path;
    throw new PortalError(
      `Command not found: ${command} (${path} is not an executable file). ` +
        "Check the path, or pass a program name to look up in PATH.",
    );
  }
  for (const dir of pathVar.split(":")) {
    const path = `${absolute(dir || ".").replace(/\/+$/, "")}/${command}`;
    if (isExecutableFile(path)) return path;
  }
  const shellHint = /\s/.test(command)
    ? " Commands run directly, not through a shell: put arguments in args, or run sh with " +
      "args ['-c', '…'] for pipelines."
    : "";
  throw new PortalError(
    `Command not found: ${command}. It is in no directory of the program's PATH ` +
      `(${pathVar}). Pass an absolute path, or set PATH in env.${shellHint}`,
  );
}

/** True for a regular file this process may execute. */
export function isExecutableFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile && libc().access(cString(path), C.X_OK) === 0;
  } catch {
    return false;
  }
}

/** Throws unless `cwd` (absolute) is an existing directory. */
export function checkWorkingDirectory(cwd: string): void {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(cwd);
  } catch {
    throw new PortalError(
      `cwd "${cwd}" does not exist. Give an existing directory, preferably as an absolute path.`,
    );
  }
  if (!info.isDirectory) throw new PortalError(`cwd "${cwd}" is not a directory.`);
}

/** Throws unless `cols` and `rows` are whole numbers within {@link TERMINAL_SIZE}. */
export function checkTerminalSize(cols: number, rows: number): void {
  const { min, max } = TERMINAL_SIZE;
  const ok = (n: number) => Number.isInteger(n) && n >= min && n <= max;
  if (!ok(cols) || !ok(rows)) {
    throw new PortalError(
      `Invalid terminal size ${cols}x${rows}: cols and rows must be whole numbers ` +
        `from ${min} to ${max}.`,
    );
  }
}
