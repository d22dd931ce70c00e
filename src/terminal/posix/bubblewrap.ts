/**
 * A person's policy enforced by the Linux kernel, through bubblewrap (`bwrap`,
 * the engine of Flatpak and Codex): the program starts inside new mount, PID
 * and IPC namespaces (and a network namespace unless `network` is `all`),
 * where the whole file system is read-only but for a private `/tmp` and the
 * writable directories; hidden paths are empty; a denied executable is a
 * script that says so and exits 126; no capability survives, even for root.
 * `network: "none"` adds a seccomp filter (ffi/seccomp.ts): no IPv4, IPv6 or
 * raw socket at all, where `loopback` leaves the sandbox its own `lo`.
 *
 * bwrap is not told `--new-session`: the program keeps the PTY as its
 * controlling terminal (job control, Ctrl+C, `/dev/tty` prompts). The only
 * reader of that terminal is the program itself, so `TIOCSTI` gains it
 * nothing. Portal's teardown still reaches everything: bwrap leads the
 * session Portal kills, `--die-with-parent` ends the sandbox if bwrap or
 * Portal dies, and the PID namespace ends with its first process.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bubblewrapArgs } from "./bubblewrap.ts";
 *
 * const sandbox = {
 *   policyFile: null, confined: true, writable: ["/var"], privateTmp: true, hidden: [], readable: [],
 *   network: "none" as const, deny: [], allow: null, filesDir: "/x",
 * };
 * const exec = { path: "/bin/sh", argv: ["sh", "-c", "id"], cwd: "/", env: {} };
 * const argv = bubblewrapArgs(sandbox, exec, { stub: "/x/stub", denied: [], filterFd: 3 });
 * assert.deepEqual(argv.slice(-6), ["--chdir", "/", "--", "/bin/sh", "-c", "id"]);
 * assert.ok(argv.includes("--unshare-net"));
 * const bind = argv.indexOf("--bind");
 * assert.deepEqual(argv.slice(bind, bind + 3), ["--bind", "/var", "/var"]);
 * ```
 * @module
 */
import { dirname, join } from "node:path";
import { noInternetFilter } from "../../../ffi/seccomp.ts";
import { PortalError } from "../../errors.ts";
import { isUnder, realPath, type Sandbox } from "../sandbox.ts";
import { isExecutableFile } from "./executable.ts";

/** Where bwrap is looked for: Debian's and Fedora's package put it in /usr/bin. */
const BWRAP_PATHS = ["/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"];

/** What a backend runs: the executable and its argv, in a working directory. */
export interface Exec {
  path: string;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** Files the program gets open for reading at fds 3, 4, … (bwrap's seccomp filter). */
  files?: string[];
  /** Processes above the program: bwrap and, in its PID namespace, its init. */
  wrappers?: number;
}

/** bwrap's path, or null when it is not installed. */
export function bubblewrapPath(): string | null {
  return BWRAP_PATHS.find(isExecutableFile) ?? null;
}

/**
 * `exec` run inside `sandbox`: bwrap, with `exec` after its `--`; `denied`:
 * the files that become the stub (denied_files.ts). Throws when bwrap is missing.
 */
export function confine(exec: Exec, sandbox: Sandbox, denied: string[]): Exec {
  const bwrap = bubblewrapPath();
  if (bwrap === null) {
    throw new PortalError(
      "The person's policy needs bubblewrap (bwrap), which is not installed: nothing was " +
        "started. Ask the person to install it (Debian/Ubuntu: apt install bubblewrap).",
    );
  }
  const { filesDir } = sandbox;
  const stub = denied.length ? written(filesDir, "denied-by-policy", DENIED_STUB, 0o755) : "";
  const filter = sandbox.network === "none"
    ? written(filesDir, `no-internet-${Deno.build.arch}.bpf`, noInternetFilter(), 0o644)
    : null;
  const argv = bubblewrapArgs(sandbox, exec, { stub, denied, filterFd: filter ? 3 : null });
  return {
    ...exec,
    path: bwrap,
    argv: ["bwrap", ...argv],
    files: filter ? [filter] : [],
    wrappers: 2,
  };
}

/** What a denied executable is inside a sandbox. */
const DENIED_STUB = new TextEncoder().encode(
  "#!/bin/sh\n" +
    `echo "portal: $0 is denied by the person's policy (commands.deny)" >&2\n` +
    "exit 126\n",
);

/**
 * bwrap's arguments (without its own name) that run `exec` inside `sandbox`;
 * `files`: the stub, the files it replaces, the fd of the seccomp filter.
 */
export function bubblewrapArgs(
  sandbox: Sandbox,
  exec: Exec,
  files: { stub: string; denied: string[]; filterFd: number | null },
): string[] {
  const everywhere = sandbox.writable.includes("/");
  const args = [
    "--die-with-parent",
    "--unshare-pid",
    "--unshare-ipc",
    ...sandbox.network === "all" ? [] : ["--unshare-net"],
    ...files.filterFd === null ? [] : ["--seccomp", String(files.filterFd)],
    "--cap-drop",
    "ALL",
    // Only the safe devices, unless the user's full rights are the rule (root could write disks).
    ...everywhere
      ? ["--bind", "/", "/", "--dev-bind", "/dev", "/dev"]
      : ["--ro-bind", "/", "/", "--dev", "/dev"],
    "--proc",
    "/proc",
    ...sandbox.privateTmp ? ["--tmpfs", "/tmp"] : [],
  ];
  const existing = (paths: string[]) => paths.filter(named).map(realPath);
  const writable = existing(sandbox.writable).filter((dir) => dir !== "/");
  const readable = existing(sandbox.readable);
  for (const dir of writable) args.push("--bind", dir, dir);
  // Before what hides: a pin binds the host's directory again, over any mount already in it.
  for (const dir of policyPins(sandbox)) args.push("--bind", dir, dir);
  for (const path of readable) args.push("--ro-bind", path, path);
  const hidden = existing(sandbox.hidden);
  // What a private /tmp or another hidden directory already hides needs no mount of its own.
  const visible = (path: string) =>
    !hidden.some((other) => other !== path && isUnder(path, other)) &&
    !(sandbox.privateTmp && isUnder(path, "/tmp") &&
      ![...writable, ...readable].some((dir) => isUnder(path, dir)));
  const emptied: string[] = [];
  for (const path of hidden.filter(visible)) {
    if (isDirectory(path)) args.push("--tmpfs", path), emptied.push(path);
    else args.push("--ro-bind", "/dev/null", path);
  }
  for (const dir of emptied) args.push("--remount-ro", dir);
  // After the writable binds, so that a policy file inside the workspace stays read-only.
  if (sandbox.policyFile && named(sandbox.policyFile)) {
    const file = realPath(sandbox.policyFile);
    args.push("--ro-bind", file, file);
  }
  for (const path of files.denied) args.push("--ro-bind", files.stub, path);
  args.push("--chdir", exec.cwd, "--", exec.path, ...exec.argv.slice(1));
  return args;
}

/**
 * The directories above the policy file that a program could rename (inside
 * a writable directory), shallowest first, to be bound onto themselves: the
 * kernel renames, removes or replaces no mount point (EBUSY), so the path
 * the person gave names the same file for the next client and after a
 * restart. (A link on the way there is refused when the file is read:
 * core/policy/policy_file.ts.)
 */
function policyPins(sandbox: Sandbox): string[] {
  if (!sandbox.policyFile || !named(sandbox.policyFile)) return [];
  const roots = sandbox.writable.filter(named).map(realPath);
  const pins: string[] = [];
  for (let dir = dirname(realPath(sandbox.policyFile)); dir !== "/"; dir = dirname(dir)) {
    if (roots.some((root) => root === "/" || (root !== dir && isUnder(dir, root)))) {
      pins.unshift(dir);
    }
  }
  return pins;
}

/**
 * Why programs cannot run under bwrap here, with how to fix it, or null when
 * they can: it is tried once, on a tiny sandbox like the real ones.
 */
export function bubblewrapProblem(): string | null {
  const bwrap = bubblewrapPath();
  if (bwrap === null) {
    return "bubblewrap (bwrap) is not installed: install it (Debian/Ubuntu: " +
      "`sudo apt install bubblewrap`; Fedora: `sudo dnf install bubblewrap`).";
  }
  const probe = ["--die-with-parent", "--unshare-pid", "--unshare-net", "--cap-drop", "ALL"];
  const run = new Deno.Command(bwrap, {
    args: [...probe, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "/bin/true"],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).outputSync();
  if (run.success) return null;
  const said = new TextDecoder().decode(run.stderr).trim();
  return `bubblewrap cannot make a sandbox here (${said || `exit ${run.code}`}). User ` +
    "namespaces may be off: `sudo sysctl -w kernel.unprivileged_userns_clone=1`, or on " +
    "Ubuntu 24.04 and later allow bwrap in AppArmor " +
    "(`kernel.apparmor_restrict_unprivileged_userns=0`, or an AppArmor profile for bwrap).";
}

/** `dir`/`name` holding `bytes` (written if it does not yet), as `mode`. */
function written(dir: string, name: string, bytes: Uint8Array, mode: number): string {
  const path = join(dir, name);
  try {
    const now = Deno.readFileSync(path);
    if (now.length === bytes.length && now.every((b, i) => b === bytes[i])) return path;
  } catch { /* not written yet */ }
  Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = `${path}.${Deno.pid}`;
  Deno.writeFileSync(temp, bytes, { mode });
  Deno.chmodSync(temp, mode);
  Deno.renameSync(temp, path);
  return path;
}

/** Whether `path` names anything, a link to nothing included (any error: no). */
function named(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}
