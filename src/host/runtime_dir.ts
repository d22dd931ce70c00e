/**
 * The private per-user directory the host's socket lives in, checked as tmux
 * checks its own before use: `$XDG_RUNTIME_DIR/portal` when that is set (a
 * tmpfs of the user's, made by the login manager), else `portal-UID` in the
 * temporary directory. Portal makes it 0700; one that exists must be a real
 * directory (not a link), owned by this user, that no one else can enter or
 * list (no group or other bits), or nothing is put in it. With the socket
 * itself 0600, only this user reaches their host.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ensureRuntimeDir, runtimeDir } from "./runtime_dir.ts";
 *
 * const base = await Deno.makeTempDir();
 * const dir = runtimeDir({ XDG_RUNTIME_DIR: base });
 * assert.equal(dir, `${base}/portal`);
 * ensureRuntimeDir(dir);
 * assert.equal(Deno.statSync(dir).mode! & 0o777, 0o700);
 * Deno.chmodSync(dir, 0o755);
 * assert.throws(() => ensureRuntimeDir(dir), /others can enter it/);
 * await Deno.remove(base, { recursive: true });
 * ```
 * @module
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/** Where this user's host sockets go (see the module doc). */
export function runtimeDir(env: Record<string, string>): string {
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, "portal");
  return join(env.TMPDIR || tmpdir(), `portal-${process.getuid?.() ?? 0}`);
}

/**
 * Creates `dir` (0700) if missing, then checks it is this user's alone;
 * throws with what is wrong and what to do.
 */
export function ensureRuntimeDir(dir: string): void {
  if (!exists(dir)) {
    // Missing parents too (an XDG_RUNTIME_DIR not made yet); one already there is left as it is.
    Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
    Deno.chmodSync(dir, 0o700); // mkdir's mode went through the umask.
  }
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(dir);
  } catch (error) {
    if (!(error instanceof Deno.errors.PermissionDenied)) throw error;
    throw unsafe(dir, "you may not look into it (it is another user's)");
  }
  const uid = process.getuid?.();
  const problem = !info.isDirectory
    ? "it is not a directory (a link, or a file)"
    : uid !== undefined && info.uid !== uid
    ? `it belongs to user ${info.uid}, not to you (${uid})`
    : (info.mode! & 0o077) !== 0
    ? `others can enter it (mode ${(info.mode! & 0o777).toString(8)}, not 700)`
    : undefined;
  if (problem) throw unsafe(dir, problem);
}

function unsafe(dir: string, problem: string): Error {
  return new Error(
    `the host's directory ${dir} is not safe to use: ${problem}. Remove it (Portal makes ` +
      "it again, 0700), or set XDG_RUNTIME_DIR to a directory of your own",
  );
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    if (error instanceof Deno.errors.PermissionDenied) return true; // There, and not ours.
    throw error;
  }
}
