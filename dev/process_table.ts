/**
 * What the OS says about processes: their rows (pid, parent, group, session,
 * state, name), whether one is alive, whose they are, and which files one
 * has open. Linux reads /proc, which costs a few file reads where `ps` costs
 * a process (tests poll this every few milliseconds); macOS asks `ps`,
 * Windows `tasklist`.
 *
 * @module
 */

/** One row of the process table. */
export interface ProcessRow {
  pid: number;
  ppid: number;
  /** Process group. */
  pgid: number;
  /** Session (Linux; -1 where only `ps` answers, as it cannot say on macOS). */
  sid: number;
  /** Foreground process group of its controlling terminal (≤ 0: none). */
  tpgid: number;
  /** State, led by the letter `ps`'s STAT starts with: `T` stopped, `Z` zombie, … */
  stat: string;
  /** Command name (macOS gives the path; this is its last part). */
  comm: string;
}

const LINUX = Deno.build.os === "linux";

/** The rows of `pids` (those still there), or of every process. */
export function processTable(pids?: number[]): ProcessRow[] {
  if (!LINUX) return psTable(pids);
  return (pids ?? procPids()).flatMap((pid) => {
    const row = procRow(pid);
    return row ? [row] : [];
  });
}

/** True while a process with this pid exists and is not a zombie (Windows: tasklist lists it). */
export function pidAlive(pid: number): boolean {
  if (Deno.build.os === "windows") return windowsPidAlive(pid);
  const [row] = processTable([pid]);
  return row !== undefined && !row.stat.startsWith("Z");
}

/** The pids of the processes whose effective user is `user` (as `ps -u`). */
export function pidsOf(user: string): number[] {
  if (!LINUX) {
    const { stdout } = new Deno.Command("ps", { args: ["-u", user, "-o", "pid="] }).outputSync();
    return new TextDecoder().decode(stdout).split("\n").map(Number).filter((n) => n > 0);
  }
  const uid = uidOf(user);
  return procPids().filter((pid) => {
    try {
      // Uid: real, effective, saved, filesystem.
      const status = Deno.readTextFileSync(`/proc/${pid}/status`);
      return Number(/^Uid:\s+\d+\s+(\d+)/m.exec(status)?.[1]) === uid;
    } catch {
      return false; // ended meanwhile
    }
  });
}

/** One open file descriptor of a process and what it leads to (`pipe:[inode]`, a path, …). */
export interface OpenFd {
  fd: number;
  link: string;
}

/**
 * The open file descriptors of `pid` (Linux /proc), skipping those it closed
 * while they were read; throws if the process is gone or not ours to see.
 */
export function openFds(pid: number): OpenFd[] {
  const dir = `/proc/${pid}/fd`;
  return [...Deno.readDirSync(dir)].flatMap(({ name }) => {
    try {
      return [{ fd: Number(name), link: Deno.readLinkSync(`${dir}/${name}`) }];
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return []; // closed meanwhile
      throw error;
    }
  });
}

/** The open flags (O_RDONLY, O_NONBLOCK, …) of `fd` of `pid`, or undefined once it is closed. */
export function fdFlags(pid: number, fd: number): number | undefined {
  try {
    const info = Deno.readTextFileSync(`/proc/${pid}/fdinfo/${fd}`);
    return Number.parseInt(/^flags:\s+(\d+)$/m.exec(info)![1], 8);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/**
 * The pids whose command line (Linux /proc, NUL-separated) satisfies `match`;
 * a process that ends meanwhile, or is not ours to read, is left out.
 */
export function pidsByCommandLine(match: (cmdline: string) => boolean): number[] {
  return procPids().filter((pid) => {
    try {
      return match(Deno.readTextFileSync(`/proc/${pid}/cmdline`));
    } catch {
      return false; // ended meanwhile
    }
  });
}

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM; Linux). */
export function procStatus(pid: number, field: string): number {
  const text = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(text.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))![1]) * 1024;
}

/** A counter of /proc/<pid>/io (wchar, write_bytes; Linux). */
export function procIo(pid: number, field: string): number {
  const text = Deno.readTextFileSync(`/proc/${pid}/io`);
  return Number(text.match(new RegExp(`^${field}: (\\d+)`, "m"))![1]);
}

/** The pids of `pid`'s children (those of its main thread; Linux /proc). */
export function childrenOf(pid: number): number[] {
  const text = Deno.readTextFileSync(`/proc/${pid}/task/${pid}/children`).trim();
  return text === "" ? [] : text.split(" ").map(Number);
}

/** Every pid /proc lists. */
function procPids(): number[] {
  return [...Deno.readDirSync("/proc")].flatMap(({ name }) => /^\d+$/.test(name) ? [+name] : []);
}

/**
 * The row of `pid` from /proc/<pid>/stat, or undefined once it is gone. The
 * name may hold spaces and parentheses: it ends at the last ')'.
 */
function procRow(pid: number): ProcessRow | undefined {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return undefined; // gone (or reaped) meanwhile
  }
  const close = text.lastIndexOf(")");
  // state ppid pgrp session tty_nr tpgid …
  const [stat, ppid, pgid, sid, , tpgid] = text.slice(close + 2).split(" ");
  return {
    pid,
    ppid: Number(ppid),
    pgid: Number(pgid),
    sid: Number(sid),
    tpgid: Number(tpgid),
    stat,
    comm: text.slice(text.indexOf("(") + 1, close),
  };
}

/** The uid of `user`, from /etc/passwd (name:password:uid:…). */
function uidOf(user: string): number {
  for (const line of Deno.readTextFileSync("/etc/passwd").split("\n")) {
    const [name, , uid] = line.split(":");
    if (name === user) return Number(uid);
  }
  return -1; // no such user: nothing is theirs
}

/** The rows `ps` gives (macOS; the same columns on Linux procps). */
function psTable(pids?: number[]): ProcessRow[] {
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
      sid: -1,
      tpgid: Number(tpgid),
      stat,
      comm: comm.trim().split("/").at(-1)!,
    }];
  });
}

/** Whether `tasklist` lists `pid`: one CSV row per match, the pid quoted in its second column. */
function windowsPidAlive(pid: number): boolean {
  const { stdout } = new Deno.Command("tasklist", {
    args: ["/FI", `PID eq ${pid}`, "/FO", "CSV", "/NH"],
    stderr: "null",
  }).outputSync();
  return new TextDecoder().decode(stdout).includes(`"${pid}"`);
}
