/**
 * The files a policy's `commands.deny` names, as a sandbox must replace
 * them and `process_start` must refuse them: every real file, and every
 * other name of the same file (its hard links), whatever `PATH` the agent
 * passes. A rule with a slash is that path; one without is a name, looked up
 * in every directory of the agent's `PATH`, the client's, the server's and
 * the system's. A hard link is found in those directories and the file's
 * own (Debian's `perl5.36.0` beside `perl`, `bzcat` beside `bunzip2`); a
 * name elsewhere on the disk is not looked for (a whole-disk search takes
 * seconds): docs/policy.md says so.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { deniedFiles } from "./denied_files.ts";
 *
 * const denied = deniedFiles(["sh"], ["/usr/bin:/bin"]);
 * assert.ok(denied.files.length > 0);
 * assert.equal(denied.ruleOf(denied.files[0]), "sh");
 * assert.equal(deniedFiles([], ["/usr/bin"]).ruleOf("/bin/sh"), undefined);
 * ```
 * @module
 */
import { dirname, join } from "node:path";
import { lstatOf, realPath, statOf } from "./sandbox.ts";

/** Directories a denied name is looked up in, besides every `PATH` given. */
const SYSTEM_DIRS = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

/** What a deny list stands for on this machine now. */
export interface DeniedFiles {
  /** Every name of every denied file (real paths, no symlink): a sandbox replaces each. */
  files: string[];
  /** The rule that denies the file at `path` (any name of it, through any link), or undefined. */
  ruleOf(path: string): string | undefined;
}

/** The files `deny` names, names looked up in each of `paths` (PATH values) and the system's. */
export function deniedFiles(deny: string[], paths: (string | undefined)[]): DeniedFiles {
  const dirs = unique([
    ...paths.flatMap((p) => (p ?? "").split(":")).filter((d) => d.startsWith("/")),
    ...SYSTEM_DIRS,
  ]);
  const realDirs = unique(dirs.map(realPath));
  /** Each file's names, and the rule of each file (by identity, else by real path). */
  const files = new Set<string>();
  const rules = new Map<string, string>();
  for (const rule of deny) {
    const candidates = rule.includes("/")
      ? [rule]
      : realDirs.filter((dir) => listing(dir).names.has(rule)).map((dir) => join(dir, rule));
    for (const candidate of candidates) {
      const info = statOf(candidate);
      if (!info?.isFile) continue;
      const real = realPath(candidate);
      if (files.has(real)) continue;
      files.add(real);
      const id = identity(info) ?? real;
      if (!rules.has(id)) rules.set(id, rule);
      // Its other names (hard links) in these directories and its own.
      if (info.nlink !== null && info.nlink > 1) {
        for (const dir of unique([dirname(real), ...realDirs])) {
          for (const link of listing(dir).linked.get(id) ?? []) files.add(link);
        }
      }
    }
  }
  return {
    files: [...files],
    ruleOf: (path) => {
      const info = statOf(path);
      return info?.isFile ? rules.get(identity(info) ?? realPath(path)) : undefined;
    },
  };
}

/** What a directory holds: its names, and its files with more than one name, by identity. */
interface Listing {
  names: Set<string>;
  linked: Map<string, string[]>;
}

/**
 * Each directory's listing as last read, kept while the directory's times
 * say nothing in it was added, removed or renamed: reading /usr/bin takes
 * some 50 ms under load, once; a name looked up in it then throws nothing.
 */
const listings = new Map<string, { stamp: string; listing: Listing }>();

/** At most this many directories are kept (an agent's PATH may name any number). */
const KEPT_DIRS = 256;

/** What the directory `dir` (a real path) holds now. */
function listing(dir: string): Listing {
  const listing: Listing = { names: new Set(), linked: new Map() };
  const info = statOf(dir);
  if (!info?.isDirectory) return listing;
  const changed = info.mtime?.getTime() ?? 0;
  const stamp = `${changed}:${info.ctime?.getTime()}`;
  const kept = listings.get(dir);
  if (kept?.stamp === stamp) return kept.listing;
  try {
    for (const entry of Deno.readDirSync(dir)) {
      listing.names.add(entry.name);
      if (!entry.isFile) continue;
      const path = join(dir, entry.name);
      const file = lstatOf(path);
      const id = file && identity(file);
      if (!id || file.nlink === null || file.nlink < 2) continue;
      listing.linked.set(id, [...listing.linked.get(id) ?? [], path]);
    }
  } catch { /* unreadable: nothing known there */ }
  listings.delete(dir);
  // Times are in milliseconds: a change in the millisecond just read could go unseen.
  if (Date.now() - changed > 1000) listings.set(dir, { stamp, listing });
  if (listings.size > KEPT_DIRS) listings.delete(listings.keys().next().value!);
  return listing;
}

/** A file's device and inode, or null where the OS gives none (Windows). */
function identity(info: Deno.FileInfo): string | null {
  return info.ino === null || info.dev === null ? null : `${info.dev}:${info.ino}`;
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}
