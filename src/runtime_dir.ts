/**
 * The private per-user directory the host's socket lives in, checked as tmux
 * checks its own before use: `$XDG_RUNTIME_DIR/portal` when that is set (a
 * tmpfs of the user's, made by the login manager), else `portal-UID` in the
 * temporary directory. Portal makes it 0700; one that exists must be a real
 * directory (not a link), owned by this user, that no one else can enter or
 * list (no group or other bits), or nothing is put in it. With the socket
 * itself 0600, only this user reaches their host.
 *
 * No other user may be able to swap it either: every directory on the way
 * must belong to this user or to root, and be writable by no one else
 * (unless sticky, as /tmp is, where no one renames another's entries). An
 * `XDG_RUNTIME_DIR` that fails this, or is not this user's own (`su`
 * without `-` keeps the other user's), is not used: the temporary
 * directory's is, and stderr says so once. The walk goes through
 * descriptors that never follow a link (ffi/dir_fd.ts), so what is checked
 * and chmodded is what is used.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runtimeDir } from "./runtime_dir.ts";
 *
 * const base = await Deno.makeTempDir();
 * const dir = runtimeDir({ XDG_RUNTIME_DIR: base });
 * assert.equal(dir, `${base}/portal`);
 * assert.equal(Deno.statSync(dir).mode! & 0o777, 0o700);
 * Deno.chmodSync(dir, 0o755);
 * assert.throws(() => runtimeDir({ XDG_RUNTIME_DIR: base }), /others can enter it/);
 * await Deno.remove(base, { recursive: true });
 * ```
 * @module
 */
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { makeDirAt, openDirAt, setMode, statFd } from "../ffi/dir_fd.ts";
import { libc } from "../ffi/libc.ts";

/** The sticky bit: in such a directory only an entry's owner renames or removes it. */
const STICKY = 0o1000;

let toldFallback = false;

/**
 * This user's host directory as `env` places it (see the module doc), made
 * if missing and checked; throws with what is wrong and what to do.
 */
export function runtimeDir(env: Record<string, string>): string {
  const uid = Deno.uid() ?? 0;
  const xdg = env.XDG_RUNTIME_DIR;
  const temporary = env.TMPDIR || tmpdir();
  if (xdg) {
    const base = openBase(xdg, uid, true);
    if (typeof base !== "string") return leaf(base, "portal", uid);
    if (!toldFallback) {
      toldFallback = true;
      console.error(
        `portal: not using XDG_RUNTIME_DIR (${xdg}): ${base}. The host's socket goes in ` +
          `${join(temporary, `portal-${uid}`)} instead (after \`su\`, \`su -\` sets your own)`,
      );
    }
  }
  const base = openBase(temporary, uid, false);
  if (typeof base === "string") {
    throw new Error(
      `the temporary directory ${temporary} is not safe for the host's socket: ${base}. Set ` +
        "TMPDIR or XDG_RUNTIME_DIR to a directory of your own",
    );
  }
  return leaf(base, `portal-${uid}`, uid);
}

/** An open base directory, and its path with no link in it. */
interface Base {
  fd: number;
  path: string;
}

/**
 * Opens `path` (its links resolved first), making what is missing of it
 * (0700), each step checked; or why it is not safe: some directory on the
 * way another user owns or may write in, or (`own`) one that is not `uid`'s.
 */
function openBase(path: string, uid: number, own: boolean): Base | string {
  const resolved = resolveExisting(path);
  const names = resolved.split("/").filter((name) => name !== "");
  let fd = openDirAt(undefined, "/");
  if (typeof fd === "string") return `/: ${fd}`;
  let at = "/";
  try {
    for (const name of names) {
      const problem = containerProblem(fd, at, uid);
      if (problem) return problem;
      const next = openOrMake(fd, name);
      libc().close(fd);
      fd = -1;
      at = join(at, name);
      if (typeof next === "string") return `${at}: ${next}`;
      fd = next;
    }
    const owner = statFd(fd).uid;
    if (own && owner !== uid) return `${at} belongs to user ${owner}, not to you (${uid})`;
    const problem = containerProblem(fd, at, uid);
    if (problem) return problem;
    const base = { fd, path: at };
    fd = -1;
    return base;
  } finally {
    if (fd >= 0) libc().close(fd);
  }
}

/** Why directory `fd` (at `path`) could let another user swap what is in it; undefined if not. */
function containerProblem(fd: number, path: string, uid: number): string | undefined {
  const { uid: owner, mode } = statFd(fd);
  if (owner !== uid && owner !== 0) return `${path} belongs to user ${owner}`;
  if ((mode & 0o022) !== 0 && (mode & STICKY) === 0) {
    return `others may write in ${path} (mode ${(mode & 0o7777).toString(8)})`;
  }
  return undefined;
}

/** Entry `name` of `parent` opened as a directory (made 0700 if missing), or why not. */
function openOrMake(parent: number, name: string): number | string {
  const opened = openDirAt(parent, name);
  if (typeof opened === "number") return opened;
  const made = makeDirAt(parent, name, 0o700);
  // "exists": another process made it since (doors started at one instant); opened again,
  // it is checked as any other.
  if (made !== "made" && made !== "exists") return opened;
  const again = openDirAt(parent, name);
  if (made === "made" && typeof again === "number") setMode(again, 0o700); // Past the umask.
  return again;
}

/** `path` with the links of its existing part resolved, the missing rest appended. */
function resolveExisting(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch (error) {
    const parent = dirname(path);
    if (!(error instanceof Deno.errors.NotFound) || parent === path) return path;
    return join(resolveExisting(parent), basename(path));
  }
}

/** Makes or opens `name` in `base` (closing `base`), checks it is `uid`'s alone; its path. */
function leaf(base: Base, name: string, uid: number): string {
  const path = join(base.path, name);
  let fd: number | string;
  try {
    fd = openOrMake(base.fd, name);
  } finally {
    libc().close(base.fd);
  }
  if (typeof fd === "string") {
    throw unsafe(path, `it is a link, a file, or not yours to open (${fd})`);
  }
  try {
    const { uid: owner, mode } = statFd(fd);
    const problem = owner !== uid
      ? `it belongs to user ${owner}, not to you (${uid})`
      : (mode & 0o077) !== 0
      ? `others can enter it (mode ${(mode & 0o777).toString(8)}, not 700)`
      : undefined;
    if (problem) throw unsafe(path, problem);
  } finally {
    libc().close(fd);
  }
  return path;
}

function unsafe(dir: string, problem: string): Error {
  return new Error(
    `the host's directory ${dir} is not safe to use: ${problem}. Remove it (Portal makes ` +
      "it again, 0700), or set XDG_RUNTIME_DIR to a directory of your own",
  );
}
