// placeholder until the PTY backend lands (being written now)
import { PortalError } from "../errors.ts";
import type { SpawnOptions, Terminal, TerminalEvents } from "./terminal.ts";
export function spawnPty(_opts: SpawnOptions, _events: TerminalEvents): Terminal {
  throw new PortalError("pty not ready");
}
