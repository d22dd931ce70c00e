/**
 * Reading a person's policy file: JSON, or TOML by its extension (`.toml`),
 * checked strictly against its schema. An unknown key, a wrong value, a
 * workspace that does not exist or a file the programs under it could
 * change is a {@link PolicyFileError} naming the file, the key, the value
 * and (where the text shows it) the line: Portal then exits 2 rather than run
 * under rules the person did not mean. `~` is the user's home; a relative
 * path is relative to the working directory, as the default workspace is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parsePolicy, PolicyFileError } from "./policy_file.ts";
 *
 * const where = { cwd: "/", home: "/home/me" };
 * const policy = parsePolicy("p.toml", 'mode = "read-only"\nhide = ["~/.ssh"]\n', where);
 * assert.deepEqual([policy.mode, policy.hide], ["read-only", ["/home/me/.ssh"]]);
 * assert.throws(
 *   () => parsePolicy("p.json", '{\n  "network": "sometimes"\n}', where),
 *   (e: Error) => e instanceof PolicyFileError && /line 2: network: "sometimes"/.test(e.message),
 * );
 * ```
 * @module
 */
import { dirname, isAbsolute, join, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { quote } from "../../errors.ts";
import { isUnder, realPath } from "../../terminal/sandbox.ts";
import { FULL_ACCESS, needsSandbox, type Policy } from "./policy.ts";

/** A policy file Portal will not run under; the message says the file, key, value and line. */
export class PolicyFileError extends Error {
  override name = "PolicyFileError";
}

const MODES = ["read-only", "workspace-write", "full"] as const;
const NETWORKS = ["none", "loopback", "all"] as const;
const KEYS = ["mode", "workspace", "hide", "network", "commands", "machines"];

/** A string or a list of them, none empty: a list either way. */
const LIST = { error: "must be a list of non-empty strings." };
const text = z.string(LIST).min(1, LIST);
const strings = z.union([text, z.array(text, LIST)], LIST)
  .transform((value) => typeof value === "string" ? [value] : value);

const oneOf = (values: readonly string[]) =>
  `is not one of ${values.map((value) => quote(value)).join(", ")}.`;

/**
 * The file's shape: every key optional, no other allowed. Each `error` is
 * what the person reads after the key and its value.
 */
const policyFile = z.strictObject({
  mode: z.enum(MODES, { error: oneOf(MODES) }).default("workspace-write"),
  workspace: strings.optional(),
  hide: strings.default([]),
  network: z.enum(NETWORKS, { error: oneOf(NETWORKS) }).default("all"),
  commands: z.strictObject({ deny: strings.default([]), allow: strings.optional() }, {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? "is not deny or allow."
        : 'must be a table: { "deny": [...], "allow": [...] }.',
  }).default({ deny: [] }),
  machines: strings.optional(),
  /** The deprecated name of `machines`. */
  hosts: strings.optional(),
}, {
  error: (issue) =>
    issue.code === "unrecognized_keys"
      ? `is not a policy key (${KEYS.join(", ")}).`
      : "is not a table of keys: give an object of mode, workspace, ….",
});

/** Where paths in the file are resolved: the working directory and the home directory. */
export interface PolicyPlace {
  cwd: string;
  home: string;
}

/**
 * Reads and checks the policy file `path`; throws {@link PolicyFileError}.
 * Also refused: a file its own programs could change or replace (see
 * {@link checkUnchangeable}).
 */
export function readPolicyFile(path: string, place: PolicyPlace): Policy {
  const file = resolve(place.cwd, path);
  let text: string;
  try {
    text = Deno.readTextFileSync(file);
  } catch (error) {
    throw new PolicyFileError(
      `policy ${file}: cannot read it (${(error as Error).message}). ` +
        "PORTAL_POLICY or --policy must name a JSON or TOML file.",
    );
  }
  const policy = parsePolicy(file, text, place);
  checkUnchangeable(policy);
  return policy;
}

/** The policy in `text` (from `file`, whose extension says TOML or JSON). */
export function parsePolicy(file: string, text: string, place: PolicyPlace): Policy {
  const toml = file.toLowerCase().endsWith(".toml");
  let data: unknown;
  try {
    data = toml ? parseToml(text) : JSON.parse(text);
  } catch (error) {
    const { line } = error as { line?: number };
    const where = line ? `line ${line}: ` : "";
    const first = String((error as Error).message).split("\n")[0];
    throw new PolicyFileError(
      `policy ${file}: ${where}not valid ${toml ? "TOML" : "JSON"}: ${first}`,
    );
  }
  const fail = (key: string, value: unknown, want: string): never => {
    const line = lineOf(text, key.split(".").at(-1)!);
    const shown = typeof value === "string" ? quote(value) : JSON.stringify(value) ?? "nothing";
    throw new PolicyFileError(
      `policy ${file}: ${line ? `line ${line}: ` : ""}${key}: ${shown} ${want}`,
    );
  };
  const parsed = policyFile.safeParse(data);
  if (!parsed.success) {
    // An unknown key first, as a person reading the file would stop at it.
    const issues = parsed.error.issues;
    const issue = issues.find((i) => i.code === "unrecognized_keys") ?? issues[0];
    const path = [...issue.path, ...issue.code === "unrecognized_keys" ? [issue.keys[0]] : []]
      .filter((part): part is string => typeof part === "string");
    const value = path.reduce<unknown>((at, key) => (at as Record<string, unknown>)?.[key], data);
    fail(path.length ? path.join(".") : "(top level)", value, issue.message);
  }
  const rules = parsed.data!;
  const paths = (list: string[]) => list.map((p) => absolute(p, place));
  const workspace = rules.workspace === undefined ? [place.cwd] : paths(rules.workspace);
  for (const dir of workspace) {
    if (!isDirectory(dir)) fail("workspace", dir, "is not an existing directory.");
  }
  if (rules.machines && rules.hosts) {
    fail("hosts", rules.hosts, "is the deprecated name of machines: give machines alone.");
  }
  return {
    ...FULL_ACCESS,
    file,
    mode: rules.mode,
    workspace,
    hide: paths(rules.hide),
    network: rules.network,
    deny: rules.commands.deny,
    allow: rules.commands.allow ?? null,
    machines: rules.machines ?? rules.hosts ?? [],
  };
}

/**
 * Throws unless no program under `policy` can change what its file says,
 * for a later client or after a restart. The sandbox makes the file and
 * every directory above it inside a writable place a mount, which no
 * program can write, rename, remove or replace (posix/bubblewrap.ts); what
 * a mount cannot hold is refused here: a link on the way to the file in a
 * directory the programs may write (they could point it elsewhere), and a
 * file they may write with another name (a hard link, which they could
 * write through).
 */
function checkUnchangeable(policy: Policy): void {
  // Without a sandbox (macOS, Windows: process_start's checks only) there is no mount to hold.
  if (!needsSandbox(policy)) return;
  const file = policy.file!;
  const roots = policy.mode === "full"
    ? ["/"]
    : policy.mode === "workspace-write"
    ? policy.workspace.map(realPath)
    : [];
  const writable = (path: string) => {
    const info = Deno.lstatSync(path);
    return roots.some((root) => isUnder(path, root)) && mayWrite(info);
  };
  for (const { link, dir } of linksOn(file)) {
    if (!writable(dir)) continue;
    throw new PolicyFileError(
      `policy ${file}: it is reached through the link ${quote(link)}, which the programs ` +
        `under it may change: give PORTAL_POLICY or --policy the file's own path ` +
        `(${quote(realPath(file))}).`,
    );
  }
  const info = Deno.statSync(file);
  // Its other names may be anywhere on its file system: any place the programs may write will do.
  if (info.nlink !== null && info.nlink > 1 && roots.length > 0 && mayWrite(info)) {
    throw new PolicyFileError(
      `policy ${file}: the file has ${info.nlink} names (hard links), through which the ` +
        "programs under it could change it: give it one name (copy it, and remove the others).",
    );
  }
}

/** Every symlink the kernel follows to resolve `path`, with the directory it is in. */
function linksOn(path: string): { link: string; dir: string }[] {
  const links: { link: string; dir: string }[] = [];
  const parts = path.split("/").filter((part) => part);
  let dir = "/";
  // As the kernel's own lookup, at most 40 links.
  while (parts.length > 0 && links.length < 40) {
    const name = parts.shift()!;
    if (name === "..") dir = dirname(dir);
    if (name === "." || name === "..") continue;
    const entry = join(dir, name);
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(entry);
    } catch {
      break;
    }
    if (!info.isSymlink) {
      dir = entry;
      continue;
    }
    links.push({ link: entry, dir });
    const target = Deno.readLinkSync(entry);
    if (target.startsWith("/")) dir = "/";
    parts.unshift(...target.split("/").filter((part) => part));
  }
  return links;
}

/**
 * Whether this user, without capabilities (as in a sandbox), may write
 * `info`'s file, or make it writable: its owner may, whatever its mode says
 * now, since an owner's `chmod u+w` needs no capability.
 */
function mayWrite(info: Deno.FileInfo): boolean {
  return info.uid === Deno.uid() || ((info.mode ?? 0) & 0o022) !== 0;
}

/** `path` absolute: `~` is `place.home`, a relative path is under `place.cwd`. */
function absolute(path: string, place: PolicyPlace): string {
  if (path === "~" || path.startsWith("~/")) return join(place.home, path.slice(1));
  return isAbsolute(path) ? resolve(path) : resolve(place.cwd, path);
}

function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/** The first line of `text` where `key` is set (TOML `key =`, JSON `"key":`), or 0. */
function lineOf(text: string, key: string): number {
  const escaped = RegExp.escape(key);
  const pattern = new RegExp(`"${escaped}"\\s*:|^\\s*${escaped}\\s*=`);
  const index = text.split("\n").findIndex((line) => pattern.test(line));
  return index + 1;
}
