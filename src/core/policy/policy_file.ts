/**
 * Reading a person's policy file: JSON, or TOML by its extension (`.toml`),
 * checked strictly. An unknown key, a wrong value or a workspace that does
 * not exist is a {@link PolicyFileError} naming the file, the key, the value
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
import { isAbsolute, join, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import { quote } from "../../errors.ts";
import { FULL_ACCESS, type NetworkRule, type Policy, type PolicyMode } from "./policy.ts";

/** A policy file Portal will not run under; the message says the file, key, value and line. */
export class PolicyFileError extends Error {
  override name = "PolicyFileError";
}

const MODES: readonly PolicyMode[] = ["read-only", "workspace-write", "full"];
const NETWORKS: readonly NetworkRule[] = ["none", "loopback", "all"];
const KEYS = ["mode", "workspace", "hide", "network", "commands", "hosts"];
const COMMAND_KEYS = ["deny", "allow"];

/** Where paths in the file are resolved: the working directory and the home directory. */
export interface PolicyPlace {
  cwd: string;
  home: string;
}

/** Reads and checks the policy file `path`; throws {@link PolicyFileError}. */
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
  return parsePolicy(file, text, place);
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
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    fail("(top level)", data, "is not a table of keys: give an object of mode, workspace, ….");
  }
  const table = data as Record<string, unknown>;
  for (const key of Object.keys(table)) {
    if (!KEYS.includes(key)) fail(key, table[key], `is not a policy key (${KEYS.join(", ")}).`);
  }
  const oneOf = <T extends string>(key: string, allowed: readonly T[], fallback: T): T => {
    const value = table[key];
    if (value === undefined) return fallback;
    if (typeof value !== "string" || !allowed.includes(value as T)) {
      fail(key, value, `is not one of ${allowed.map((a) => quote(a)).join(", ")}.`);
    }
    return value as T;
  };
  const paths = (key: string, value: unknown): string[] =>
    strings(key, value).map((p) => absolute(p, place));
  const strings = (key: string, value: unknown): string[] => {
    if (value === undefined) return [];
    const list = typeof value === "string" ? [value] : value;
    if (!Array.isArray(list) || list.some((v) => typeof v !== "string" || v === "")) {
      fail(key, value, "must be a list of non-empty strings.");
    }
    return list as string[];
  };
  const commands = table.commands ?? {};
  if (typeof commands !== "object" || commands === null || Array.isArray(commands)) {
    fail("commands", commands, 'must be a table: { "deny": [...], "allow": [...] }.');
  }
  const rules = commands as Record<string, unknown>;
  for (const key of Object.keys(rules)) {
    if (!COMMAND_KEYS.includes(key)) fail(`commands.${key}`, rules[key], "is not deny or allow.");
  }
  const mode = oneOf("mode", MODES, "workspace-write");
  const workspace = table.workspace === undefined
    ? [place.cwd]
    : paths("workspace", table.workspace);
  for (const dir of workspace) {
    if (!isDirectory(dir)) fail("workspace", dir, "is not an existing directory.");
  }
  return {
    ...FULL_ACCESS,
    file,
    mode,
    workspace,
    hide: paths("hide", table.hide),
    network: oneOf("network", NETWORKS, "all"),
    deny: strings("commands.deny", rules.deny),
    allow: rules.allow === undefined ? null : strings("commands.allow", rules.allow),
    hosts: strings("hosts", table.hosts),
  };
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
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`"${escaped}"\\s*:|^\\s*${escaped}\\s*=`);
  const index = text.split("\n").findIndex((line) => pattern.test(line));
  return index + 1;
}
