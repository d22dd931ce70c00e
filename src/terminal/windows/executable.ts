/**
 * Finding the program to run on Windows, against the child's own PATH and
 * PATHEXT (not the server's), so the agent gets "command not found" up
 * front. A bare name is looked up in each PATH directory with each PATHEXT
 * extension (`python` → `python.exe`); a name with a directory part is
 * taken relative to the working directory. The working directory itself is
 * not searched for bare names (cmd.exe does that; CreateProcess searches
 * the server's directories too): `.\\tool` names it explicitly, as on POSIX.
 *
 * Pure apart from the default file check, which tests inject.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findWindowsProgram } from "./executable.ts";
 *
 * const files = new Set(["C:\\Python\\python.exe"]);
 * const env = { Path: "C:\\Windows;C:\\Python", PATHEXT: ".COM;.EXE" };
 * assert.equal(findWindowsProgram("python", env, "C:\\", (p) => files.has(p)), "C:\\Python\\python.exe");
 * ```
 * @module
 */
import { win32 } from "node:path";
import { PortalError, quote } from "../../errors.ts";
import { lstatOf, statOf } from "../sandbox.ts";
import { lookupVariable } from "./environment_block.ts";

/** PATHEXT when the environment has none: what Windows itself falls back to. */
export const DEFAULT_PATHEXT = ".COM;.EXE;.BAT;.CMD";

/** Whether a path names a file (not a directory) that may be run. */
export type FileCheck = (path: string) => boolean;

/**
 * The program `command` names, as an absolute path, or a {@link PortalError}
 * saying where it was looked for. `env` is the child's environment (names
 * in any case), `cwd` its absolute working directory.
 */
export function findWindowsProgram(
  command: string,
  env: Record<string, string>,
  cwd: string,
  isFile: FileCheck = isProgramFile,
): string {
  const extensions = (lookupVariable(env, "PATHEXT") || DEFAULT_PATHEXT).split(";")
    .map((ext) => ext.trim().toLowerCase()).filter((ext) => ext.startsWith("."));
  // A name that already ends in a known extension is taken as it is; any other gets each one.
  const candidates = (base: string) =>
    extensions.includes(win32.extname(base).toLowerCase())
      ? [base]
      : extensions.map((ext) => base + ext);
  if (/[\\/]/.test(command) || /^[a-z]:/i.test(command)) {
    const base = win32.resolve(cwd, command);
    const found = candidates(base).find(isFile);
    if (found !== undefined) return found;
    throw new PortalError(
      `Command not found: ${quote(command)} (no program ${base}, with or without an ` +
        `extension of PATHEXT ${
          extensions.join(";")
        }). Check the path, or pass a program name to look up ` +
        "in PATH.",
    );
  }
  const pathVar = lookupVariable(env, "PATH") ?? "";
  for (const entry of pathVar.split(";")) {
    const dir = entry.trim().replace(/^"(.*)"$/, "$1");
    if (dir === "") continue;
    const found = candidates(win32.join(win32.resolve(cwd, dir), command)).find(isFile);
    if (found !== undefined) return found;
  }
  const shellHint = /\s/.test(command)
    ? " Commands run directly, not through a shell: put arguments in args, or run cmd.exe " +
      "with args ['/c', '…']."
    : "";
  throw new PortalError(
    `Command not found: ${quote(command)}. No such program with an extension of PATHEXT ` +
      `(${extensions.join(";")}) is in a directory of the program's PATH (${pathVar}). Pass an ` +
      `absolute path, or set PATH in env.${shellHint}`,
  );
}

/** True for a batch file, which CreateProcess would hand to cmd.exe with cmd's own quoting. */
export function isBatchFile(path: string): boolean {
  return /\.(bat|cmd)$/i.test(path);
}

/**
 * True for anything but a directory that exists. App execution aliases (the
 * `python.exe` stubs in WindowsApps) are reparse points `stat` cannot
 * follow, yet CreateProcess runs them, hence the `lstat` fallback.
 */
function isProgramFile(path: string): boolean {
  const info = statOf(path);
  return info !== null ? info.isFile : lstatOf(path)?.isDirectory === false;
}
