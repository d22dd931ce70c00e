/**
 * The pseudo-terminal backend: picks the implementation for this OS.
 *
 * @module
 */
import { PortalError } from "../errors.ts";
import { spawnPosixPty } from "./posix/pty_spawn.ts";
import type { SpawnOptions, Terminal, TerminalEvents } from "./terminal.ts";

/**
 * Starts a program on a new pseudo-terminal. Synchronous: returns the running
 * {@link Terminal} (events follow), or throws {@link PortalError}.
 */
export function spawnPty(opts: SpawnOptions, events: TerminalEvents): Terminal {
  if (Deno.build.os === "windows") {
    throw new PortalError(
      "pty: true is not yet supported on Windows; run the program with pty: false (pipes) for now.",
    );
  }
  return spawnPosixPty(opts, events);
}
