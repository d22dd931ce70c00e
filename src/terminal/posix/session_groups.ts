/**
 * The process groups of a session, so a kill reaches the background jobs of a
 * shell on a PTY too: they have groups of their own, which `kill(-pid)` misses.
 *
 * @module
 */
import { C, errno, libc } from "../../../ffi/libc.ts";

/**
 * Process groups of the session `sid` with a live (not zombie) process
 * (Linux: from /proc/<pid>/stat, whose 6th field is the session id). macOS
 * offers no cheap equivalent: there, the group whose id is `sid` (the
 * leader's), if it has a process.
 */
export function sessionGroups(sid: number, options: { fresh?: boolean } = {}): number[] {
  if (!C.PROC_STAT) return libc().kill(-sid, 0) === 0 || errno() === C.EPERM ? [sid] : [];
  if (options.fresh) sessions = null;
  sessions ??= scanSessions();
  return sessions.get(sid) ?? [];
}

/**
 * One /proc scan serves every kill() of one synchronous run (e.g. a
 * shutdown); `fresh` asks for a scan begun now.
 */
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
