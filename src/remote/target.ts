/**
 * How a tool's call finds what it acts on, wherever that runs: each tool
 * declares its {@link Target} once, in its definition (src/mcp/tools/), and
 * remotes.ts routes the call by it, never by the tool's name.
 *
 * @module
 */
import type { z } from "zod";

/**
 * What a tool's call acts on, declared once by each tool, as tmux's command table declares
 * `.target`; a call is routed by it, never by the tool's name:
 * - `process`: the process `id` names, wherever it runs (on another machine: relayed there);
 * - `process_removed`: the same, and the process is forgotten after (process_cleanup);
 * - `process_here`: the process `id` names if any, here only (one on another machine is
 *   refused, saying where to go instead: process_watch);
 * - `start`: a new process, on the machine `machine` names if any;
 * - `list`: every process the client sees: this server's and each machine's, merged;
 * - `kill_all`: every process the client started: here, then on each machine, merged;
 * - `none`: no process (the program registry).
 */
export type Target =
  | "process"
  | "process_removed"
  | "process_here"
  | "start"
  | "list"
  | "kill_all"
  | "none";

/** A tool as a call's route needs it: its name, its target, and the schema of its reply. */
export interface RoutedTool {
  name: string;
  target: Target;
  output: z.ZodType;
}
