/**
 * What the OS says about processes (read by dev/process_table.ts), as tests
 * ask it: whether one is alive, what descends from one or shares its
 * session, and which job owns a terminal.
 *
 * @module
 */
import { waitFor } from "../../dev/wait.ts";
import { pidAlive, type ProcessRow, processTable } from "../../dev/process_table.ts";

export { pidAlive, type ProcessRow, processTable };

/** The processes of the foreground process group of the terminal that `pid` runs on. */
export function foregroundGroup(pid: number): ProcessRow[] {
  const table = processTable();
  const tpgid = table.find((row) => row.pid === pid)?.tpgid ?? 0;
  return tpgid > 0 ? table.filter((row) => row.pgid === tpgid) : [];
}

/**
 * Waits until a running (not stopped) process named `comm` is in the
 * foreground group of `shell`'s terminal. A shell echoes a command line (and
 * `fg` prints the job) before the job has the terminal; only from this moment
 * does a ^C, ^Z or foreground signal reach the job and not the shell. The
 * name matters as well as the group: it means the shell's forked child has
 * exec'd the job, so the signal meets the job's dispositions, not the shell's.
 */
export function waitForeground(shell: number, comm: string): Promise<ProcessRow[]> {
  return waitFor(
    `${comm} to be the running foreground job of the terminal of ${shell}`,
    () => foregroundGroup(shell),
    { until: (rows) => rows.some((row) => row.comm === comm && !row.stat.startsWith("T")) },
  );
}

/** Every live (not zombie) descendant of `pid`, by parent links. */
export function descendants(pid: number): ProcessRow[] {
  const table = processTable().filter((row) => !row.stat.startsWith("Z"));
  const found: ProcessRow[] = [];
  const parents = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of table) {
      if (parents.has(row.ppid) && !parents.has(row.pid)) {
        parents.add(row.pid);
        found.push(row);
        grew = true;
      }
    }
  }
  return found;
}

/**
 * The live (not zombie) members of the sessions `sids` (Linux: only /proc
 * tells a session; every program Portal starts leads one, so its pid is the id).
 */
export function sessionMembers(sids: number[]): number[] {
  if (Deno.build.os !== "linux") throw new Error("sessionMembers reads /proc: Linux only");
  const wanted = new Set(sids);
  return processTable()
    .filter((row) => wanted.has(row.sid) && !row.stat.startsWith("Z"))
    .map((row) => row.pid);
}

/** Those of `pids` that are alive (not zombies). */
export function alive(pids: number[]): number[] {
  return pids.length === 0 ? [] : processTable(pids)
    .filter((row) => !row.stat.startsWith("Z"))
    .map((row) => row.pid);
}
