/**
 * What a program may touch, as a backend needs it (the core maps the person's
 * policy onto it: core/policy/sandbox_rules.ts), the one check that is the
 * same everywhere (which executables `process_start` may start), and the
 * looks at a path those checks share. The kernel's part is per OS
 * (posix/bubblewrap.ts on Linux).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkCommand, type Sandbox } from "./sandbox.ts";
 *
 * const rules = { policyFile: "/p.json", deny: ["nc"], allow: null } as unknown as Sandbox;
 * const none = () => undefined;
 * assert.throws(() => checkCommand("nc", "/usr/bin/nc", rules, none), /policy \/p.json denies "nc"/);
 * checkCommand("python3", "/usr/bin/python3", rules, none);
 * // Another name of a denied file (perl5.36.0, a hard link of perl): `deniedBy` knows it.
 * assert.throws(() => checkCommand("perl5.36.0", "/usr/bin/perl5.36.0", rules, () => "perl"), /"perl"/);
 * ```
 * @module
 */
import { basename } from "node:path";
import { PortalError, quote } from "../errors.ts";

/** The rules one program runs under. */
export interface Sandbox {
  /** The person's policy file, named in refusals and read-only to the program. */
  policyFile: string | null;
  /** Whether the kernel must confine it (false: only the start checks apply). */
  confined: boolean;
  /** Directories it may write (`/`: everywhere); none under `read-only`. */
  writable: string[];
  /** Whether its /tmp is its own, empty at start and gone with it. */
  privateTmp: boolean;
  /** Paths that appear empty to it. */
  hidden: string[];
  /** Host paths it must still read over its private /tmp (shell integration's files). */
  readable: string[];
  network: "none" | "loopback" | "all";
  /** Executables (names or paths) that may not run, at start or inside. */
  deny: string[];
  /** If set, the only executables that may be started. */
  allow: string[] | null;
  /**
   * A directory of Portal's (hidden inside) where the backend writes, once,
   * what a sandbox needs: the stub a denied executable becomes, a filter.
   */
  filesDir: string;
}

/**
 * Throws a {@link PortalError} naming the rule unless `command` (found at
 * `path`) may be started under `sandbox`. A rule without a slash is a name,
 * matched against the command's name, the found file's and its real file's
 * (`nc` → `nc.openbsd`); a rule with one is a path, matched by real path.
 * `deniedBy` names the rule that denies the file at `path` under any other
 * name (a hard link: denied_files.ts), or undefined.
 */
export function checkCommand(
  command: string,
  path: string,
  sandbox: Sandbox,
  deniedBy: (path: string) => string | undefined,
): void {
  const real = realPath(path);
  const names = new Set([basename(command), basename(path), basename(real)]);
  const matches = (rule: string) => rule.includes("/") ? realPath(rule) === real : names.has(rule);
  const where = sandbox.policyFile ? `policy ${sandbox.policyFile}` : "policy";
  const denied = sandbox.deny.find(matches) ?? deniedBy(path);
  if (denied !== undefined) {
    throw new PortalError(
      `The person's ${where} denies ${quote(command)} (commands.deny: ${quote(denied)}). ` +
        "Do the work with another program, or ask the person to change their policy.",
      "denied",
    );
  }
  if (sandbox.allow !== null && !sandbox.allow.some(matches)) {
    throw new PortalError(
      `The person's ${where} allows only ${sandbox.allow.map((a) => quote(a)).join(", ")} ` +
        `(commands.allow); ${quote(command)} is not among them.`,
      "denied",
    );
  }
}

/** What `path` is (its links followed), or null when it is missing or unreadable. */
export function statOf(path: string): Deno.FileInfo | null {
  try {
    return Deno.statSync(path);
  } catch {
    return null;
  }
}

/** What `path` itself is (a link not followed), or null when nothing is named so. */
export function lstatOf(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch {
    return null;
  }
}

/** `path` with every symlink resolved, or as it is when it does not exist. */
export function realPath(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}

/**
 * Whether a path is, or is inside, a path `sandbox` hides (by its name or
 * its real path): a program cannot tell it from a missing one, and nor may
 * Portal's own errors. The hidden paths are resolved once, here.
 */
export function hiddenBy(sandbox: Sandbox): (path: string) => boolean {
  const hidden = [...new Set(sandbox.hidden.flatMap((path) => [path, realPath(path)]))];
  return (path) => {
    const forms = [path, realPath(path)];
    return hidden.some((dir) => forms.some((form) => isUnder(form, dir)));
  };
}

/** Whether `path` is `dir` or inside it. */
export function isUnder(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}
