/**
 * The process groups of a session, so a kill reaches the background jobs of a
 * shell on a PTY too: they have groups of their own, which `kill(-pid)` misses.
 *
 * @module
 */
import { C } from "../../../ffi/libc.ts";

/**
 * Process groups of the session `sid` (Linux: from /proc/<pid>/stat, whose
 * 6th field is the session id). macOS offers no cheap equivalent: none.
 */
export function sessionGroups(sid: number): number[] {
  if (!C.PROC_STAT) return [];
  sessions ??= scanSessions();
  return sessions.get(sid) ?? [];
}

/** One /proc scan serves every kill() of one synchronous run (e.g. a shutdown). */
let sessions: Map<number, number[]> | null = null;

function scanSessions(): Map<number, number[]> {
  queueMicrotask(() => sessions = null);
  const found = new Map<number, number[]>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    let stat: string;
    try {
      stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
    } catch {
      continue; // Gone meanwhile.
    }
    // "pid (comm) state ppid pgrp session ...": comm may contain spaces and ")".
    const [state, , pgrp, session] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Zombies are dead already; they only wait for their parent.
    if (state === "Z") continue;
    const groups = found.get(Number(session)) ?? [];
    groups.push(Number(pgrp));
    found.set(Number(session), groups);
  }
  return found;
}
