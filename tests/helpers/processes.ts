/**
 * What the OS says about processes, read with `ps` (the same columns on Linux
 * procps and macOS; `tasklist` on Windows): whether one is alive, and which
 * job owns a terminal.
 *
 * @module
 */
import { waitFor } from "../../dev/wait.ts";

/** One row of the process table. */
export interface ProcessRow {
  pid: number;
  ppid: number;
  /** Process group. */
  pgid: number;
  /** Foreground process group of its controlling terminal (≤ 0: none). */
  tpgid: number;
  /** State letters: `T` stopped, `Z` zombie, … */
  stat: string;
  /** Command name (macOS gives the path; this is its last part). */
  comm: string;
}

/** The rows of `pids`, or of every process. */
export function processTable(pids?: number[]): ProcessRow[] {
  const select = pids ? ["-p", pids.join(",")] : ["-A"];
  // ps exits with 1 when a listed pid is gone; the rows it printed are still the answer.
  const { stdout } = new Deno.Command("ps", {
    args: [...select, "-o", "pid=,ppid=,pgid=,tpgid=,stat=,comm="],
    stderr: "null",
  }).outputSync();
  return new TextDecoder().decode(stdout).split("\n").flatMap((line) => {
    const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(-?\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (!match) return [];
    const [, pid, ppid, pgid, tpgid, stat, comm] = match;
    return [{
      pid: Number(pid),
      ppid: Number(ppid),
      pgid: Number(pgid),
      tpgid: Number(tpgid),
      stat,
      comm: comm.trim().split("/").at(-1)!,
    }];
  });
}

/** True while a process with this pid exists and is not a zombie (Windows: tasklist lists it). */
export function pidAlive(pid: number): boolean {
  if (Deno.build.os === "windows") return windowsPidAlive(pid);
  const [row] = processTable([pid]);
  return row !== undefined && !row.stat.startsWith("Z");
}

/** Whether `tasklist` lists `pid`: one CSV row per match, the pid quoted in its second column. */
function windowsPidAlive(pid: number): boolean {
  const { stdout } = new Deno.Command("tasklist", {
    args: ["/FI", `PID eq ${pid}`, "/FO", "CSV", "/NH"],
    stderr: "null",
  }).outputSync();
  return new TextDecoder().decode(stdout).includes(`"${pid}"`);
}

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
 * The live (not zombie) members of the sessions `sids` (Linux procps `ps -s`;
 * every program Portal starts leads a session, so its pid is the id).
 */
export function sessionMembers(sids: number[]): number[] {
  const { stdout } = new Deno.Command("ps", {
    args: ["-s", sids.join(","), "-o", "pid=,stat="],
    stderr: "null",
  }).outputSync();
  return new TextDecoder().decode(stdout).split("\n").flatMap((line) => {
    const [pid, stat] = line.trim().split(/\s+/);
    return pid && !stat.startsWith("Z") ? [Number(pid)] : [];
  });
}

/** Those of `pids` that are alive (not zombies). */
export function alive(pids: number[]): number[] {
  return pids.length === 0 ? [] : processTable(pids)
    .filter((row) => !row.stat.startsWith("Z"))
    .map((row) => row.pid);
}
