/**
 * Directories reached through descriptors, never through a symbolic link:
 * each step of a path is opened with O_NOFOLLOW|O_DIRECTORY relative to the
 * one before (`openat`), made with `mkdirat`, and checked and changed on the
 * open descriptor (`statx`/`fstat`, `fchmod`). A directory someone swaps for
 * a link between two calls is refused rather than followed, so a check
 * never looks at one file and a chmod never lands on another.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { libc } from "./libc.ts";
 * import { makeDirAt, openDirAt, setMode, statFd } from "./dir_fd.ts";
 *
 * const base = Deno.makeTempDirSync();
 * const root = openDirAt(undefined, base);
 * assert.ok(typeof root === "number");
 * assert.equal(makeDirAt(root, "leaf", 0o755), "made");
 * assert.equal(makeDirAt(root, "leaf", 0o755), "exists");
 * const leaf = openDirAt(root, "leaf") as number;
 * setMode(leaf, 0o700);
 * assert.equal(statFd(leaf).mode & 0o777, 0o700);
 * Deno.symlinkSync("/etc", `${base}/link`);
 * assert.equal(typeof openDirAt(root, "link"), "string"); // Not followed.
 * libc().close(leaf);
 * libc().close(root);
 * Deno.removeSync(base, { recursive: true });
 * ```
 * @module
 */
import { cString } from "./c_strings.ts";
import { errno, libc, strerror } from "./libc.ts";
import { C } from "./os_constants.ts";

/** Linux statx: resolve nothing, look at the descriptor itself; the fields wanted (type, mode, uid). */
const AT_EMPTY_PATH = 0x1000;
const STATX_MODE_AND_UID = 0x1 | 0x2 | 0x8;
const STAT_BYTES = 256;

/**
 * Opens `name` (one entry of directory `parent`; or, with no parent, an
 * absolute path whose every part is trusted) as a directory, without
 * following a link: its descriptor, or why not (a link, a file, missing, not
 * allowed), as the C library says it.
 */
export function openDirAt(parent: number | undefined, name: string): number | string {
  const flags = C.O_DIRECTORY | C.O_NOFOLLOW | C.O_CLOEXEC;
  const fd = parent === undefined
    ? libc().open(cString(name), flags)
    : libc().openat(parent, cString(name), flags);
  return fd >= 0 ? fd : strerror(errno());
}

/** Makes directory `name` in `parent` with `mode` (less the umask): "made", "exists", or why not. */
export function makeDirAt(parent: number, name: string, mode: number): "made" | "exists" | string {
  if (libc().mkdirat(parent, cString(name), mode) === 0) return "made";
  const code = errno();
  return code === C.EEXIST ? "exists" : strerror(code);
}

/** The owner and mode (type bits included) of what `fd` is open on; throws if it cannot say. */
export function statFd(fd: number): { uid: number; mode: number } {
  const buffer = new Uint8Array(STAT_BYTES);
  const lib = libc();
  const result = C.STAT_CALL === "statx"
    ? lib.statx!(fd, cString(""), AT_EMPTY_PATH, STATX_MODE_AND_UID, buffer)
    : lib.fstat!(fd, buffer);
  if (result !== 0) throw new Error(`${C.STAT_CALL}: ${strerror(errno())}`);
  const view = new DataView(buffer.buffer);
  return {
    uid: view.getUint32(C.STAT_UID_OFFSET, true),
    mode: view.getUint16(C.STAT_MODE_OFFSET, true),
  };
}

/** Sets the permission bits of what `fd` is open on; throws with the C library's reason. */
export function setMode(fd: number, mode: number): void {
  if (libc().fchmod(fd, mode) !== 0) throw new Error(`fchmod: ${strerror(errno())}`);
}
