/**
 * The lock beside each host's socket (`<socket>.lock`, holding the host's
 * pid): one host per socket, as long as it lives. A host that ends removes
 * its socket files and then its lock; one that was killed (SIGKILL) leaves
 * them, and the next host to start in the same directory removes those of
 * every host that no longer runs (its lock is free), so they do not pile up.
 * The lock taken is checked to be the file the path names, since a sweeper
 * may remove a free lock between another's open and lock.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { releaseSocketLock, sweepDeadHosts, takeSocketLock } from "./socket_lock.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const dead = takeSocketLock(`${dir}/a.sock`)!;
 * Deno.writeTextFileSync(`${dir}/a.sock`, "");
 * dead.close(); // As a SIGKILL would: the files stay, the lock is free.
 * const live = takeSocketLock(`${dir}/b.sock`)!;
 * assert.equal(takeSocketLock(`${dir}/b.sock`), undefined);
 * sweepDeadHosts(dir);
 * assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["b.sock.lock"]);
 * releaseSocketLock(`${dir}/b.sock`, live);
 * assert.deepEqual([...Deno.readDirSync(dir)], []);
 * Deno.removeSync(dir);
 * ```
 * @module
 */
import { join } from "node:path";
import { sameFile, takeLock } from "../core/store/database_file.ts";

/** Locks `<socket>.lock` for this host's life, or undefined when another process holds it. */
export function takeSocketLock(socket: string): Deno.FsFile | undefined {
  return takeLock(`${socket}.lock`);
}

/** Removes `socket`'s files and its lock, then lets the lock go: the host is ending. */
export function releaseSocketLock(socket: string, lock: Deno.FsFile): void {
  for (const path of [socket, `${socket}.fds`, `${socket}.lock`]) removeQuietly(path);
  lock.close();
}

/** Removes the socket files of each host in `dir` that no longer runs (its lock is free). */
export function sweepDeadHosts(dir: string): void {
  let names: string[];
  try {
    names = [...Deno.readDirSync(dir)].map((entry) => entry.name);
  } catch {
    return;
  }
  for (const name of names.filter((name) => name.endsWith(".sock.lock"))) {
    const path = join(dir, name);
    let file: Deno.FsFile;
    try {
      file = Deno.openSync(path, { read: true, write: true });
    } catch {
      continue; // Removed meanwhile.
    }
    try {
      if (file.tryLockSync(true) && sameFile(file, path)) {
        releaseSocketLock(path.slice(0, -".lock".length), file);
      } else file.close();
    } catch {
      file.close();
    }
  }
}

function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch { /* gone already */ }
}
