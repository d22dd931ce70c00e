/**
 * The process groups of a session, so a kill reaches the background jobs of a
 * shell on a PTY too: they have groups of their own, which `kill(-pid)` misses.
 *
 * @module
 */
import { errno, libc } from "../../../../ffi/libc.ts";
import { C } from "../../../../ffi/os_constants.ts";

/**
 * Process groups of the session `sid` with a live (not zombie) process
 * (Linux: from /proc/<pid>/stat, whose 6th field is the session id). macOS
 * offers no cheap equivalent (nor does a Linux without /proc mounted): there,
 * the group whose id is `sid` (the leader's), if it has a process.
 */
export function sessionGroups(sid: number, options: { fresh?: boolean } = {}): number[] {
  if (options.fresh) sessions = undefined;
  if (sessions === undefined) sessions = C.PROC_STAT ? scanSessions() : null;
  if (sessions === null) return libc().kill(-sid, 0) === 0 || errno() === C.EPERM ? [sid] : [];
  return sessions.get(sid) ?? [];
}

/**
 * One /proc scan serves every kill() of one synchronous run (e.g. a
 * shutdown); `fresh` asks for a scan begun now. `null`: no /proc to scan.
 */
let sessions: Map<number, number[]> | null | undefined;

function scanSessions(): Map<number, number[]> | null {
  queueMicrotask(() => sessions = undefined);
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync("/proc");
  } catch {
    return null;
  }
  const found = new Map<number, number[]>();
  for (const entry of entries) {
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
