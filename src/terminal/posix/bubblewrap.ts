/**
 * A person's policy enforced by the Linux kernel, through bubblewrap (`bwrap`,
 * the engine of Flatpak and Codex): the program starts inside new user,
 * mount, PID, IPC and UTS namespaces (and a network namespace unless
 * `network` is `all`), where the whole file system is read-only but for a
 * private `/tmp` and the writable directories; hidden paths are empty; a
 * denied executable is a script that says so and exits 126; no capability
 * survives, even for root. The kernel's settings (`/proc/sys`,
 * `/proc/sysrq-trigger`, and `/sys` where everything else is writable) are
 * read-only in every mode, root or not: most sysctls check only the file's
 * mode, which root passes even in a user namespace of its own. A seccomp
 * filter (ffi/seccomp.ts) refuses the sockets `network` rules out.
 *
 * A hidden path stays hidden whatever the program renames: the path is a
 * mount, and so is every directory above it inside a writable place, and
 * the kernel renames, removes or replaces no mount point (EBUSY). The next
 * program finds every hidden path where the policy names it.
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
 * const launch = { path: "/bin/sh", argv: ["sh", "-c", "id"], cwd: "/", env: {} };
 * const argv = bubblewrapArgs(sandbox, launch, { stub: "/x/stub", denied: [], filterFd: 3 });
 * assert.deepEqual(argv.slice(-6), ["--chdir", "/", "--", "/bin/sh", "-c", "id"]);
 * assert.ok(argv.includes("--unshare-net"));
 * const bind = argv.indexOf("--bind");
 * assert.deepEqual(argv.slice(bind, bind + 3), ["--bind", "/var", "/var"]);
 *
 * // A hidden file in a workspace: the directory above it is pinned, so no program renames it.
 * const ws = Deno.realPathSync(Deno.makeTempDirSync());
 * Deno.mkdirSync(`${ws}/conf`);
 * Deno.writeTextFileSync(`${ws}/conf/secret`, "");
 * const hiding = { ...sandbox, writable: [ws], hidden: [`${ws}/conf/secret`] };
 * const args = bubblewrapArgs(hiding, launch, { stub: "", denied: [], filterFd: null }).join(" ");
 * assert.ok(args.includes(`--bind ${ws} ${ws} --bind ${ws}/conf ${ws}/conf`));
 * assert.ok(args.includes(`--ro-bind /dev/null ${ws}/conf/secret`));
 * Deno.removeSync(ws, { recursive: true });
 * ```
 * @module
 */
import { dirname, join } from "node:path";
import { networkFilter } from "../../../ffi/seccomp.ts";
import { PortalError } from "../../errors.ts";
import type { Launch } from "../launch.ts";
import { isUnder, lstatOf, realPath, type Sandbox, statOf } from "../sandbox.ts";
import { isExecutableFile } from "./executable.ts";

/** Where bwrap is looked for: Debian's and Fedora's package put it in /usr/bin. */
const BWRAP_PATHS = ["/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"];

/** bwrap's path, or null when it is not installed. */
export function bubblewrapPath(): string | null {
  return BWRAP_PATHS.find(isExecutableFile) ?? null;
}

/**
 * `launch` run inside `sandbox`: bwrap, with `launch` after its `--`; `denied`:
 * the files that become the stub (denied_files.ts). Throws when bwrap is missing.
 */
export function confine(launch: Launch, sandbox: Sandbox, denied: string[]): Launch {
  const bwrap = bubblewrapPath();
  if (bwrap === null) {
    throw new PortalError(
      "The person's policy needs bubblewrap (bwrap), which is not installed: nothing was " +
        "started. Ask the person to install it (Debian/Ubuntu: apt install bubblewrap).",
    );
  }
  const { filesDir, network } = sandbox;
  const stub = denied.length ? written(filesDir, "denied-by-policy", DENIED_STUB, 0o755) : "";
  const filter = network === "all"
    ? null
    : written(filesDir, `network-${network}-${Deno.build.arch}.bpf`, networkFilter(network), 0o644);
  const argv = bubblewrapArgs(sandbox, launch, { stub, denied, filterFd: filter ? 3 : null });
  return {
    ...launch,
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
 * bwrap's arguments (without its own name) that run `launch` inside `sandbox`;
 * `files`: the stub, the files it replaces, the fd of the seccomp filter.
 */
export function bubblewrapArgs(
  sandbox: Sandbox,
  launch: Launch,
  files: { stub: string; denied: string[]; filterFd: number | null },
): string[] {
  const everywhere = sandbox.writable.includes("/");
  const args = [
    "--die-with-parent",
    // A user namespace for root too: its capabilities there are over nothing of the machine's.
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    ...sandbox.network === "all" ? [] : ["--unshare-net"],
    ...files.filterFd === null ? [] : ["--seccomp", String(files.filterFd)],
    "--cap-drop",
    "ALL",
    // Only the safe devices, unless the user's full rights are the rule (root could write disks).
    ...everywhere
      ? ["--bind", "/", "/", "--dev-bind", "/dev", "/dev", "--ro-bind", "/sys", "/sys"]
      : ["--ro-bind", "/", "/", "--dev", "/dev"],
    "--proc",
    "/proc",
    // The kernel's settings, whatever the mode and whoever runs it (see the module doc).
    "--ro-bind",
    "/proc/sys",
    "/proc/sys",
    "--ro-bind-try",
    "/proc/sysrq-trigger",
    "/proc/sysrq-trigger",
    ...sandbox.privateTmp ? ["--tmpfs", "/tmp"] : [],
  ];
  // Whether a path names anything, a link to nothing included.
  const named = (path: string) => lstatOf(path) !== null;
  const existing = (paths: string[]) => paths.filter(named).map(realPath);
  const writable = existing(sandbox.writable).filter((dir) => dir !== "/");
  const hidden = existing(sandbox.hidden);
  // The working directory under a private /tmp would be missing (bwrap: "Can't chdir"): it is
  // shown read-only, as a program sees it outside /tmp (unless writable or hidden, as any path).
  const inPrivateTmp = (path: string) =>
    sandbox.privateTmp && isUnder(path, "/tmp") && !writable.some((dir) => isUnder(path, dir));
  const cwd = inPrivateTmp(launch.cwd) && named(launch.cwd) ? [launch.cwd] : [];
  const readable = existing([...sandbox.readable, ...cwd]);
  // What a private /tmp or /dev, or another hidden directory, already hides needs no mount.
  const visible = hidden.filter((path) =>
    !hidden.some((other) => other !== path && isUnder(path, other)) &&
    !(inPrivateTmp(path) && !readable.some((dir) => isUnder(path, dir))) &&
    !(isUnder(path, "/dev") && !everywhere)
  );
  // The policy file's folders are pinned as a hidden path's are: the path the person gave names
  // the same file for the next client and after a restart (a link on the way there is refused
  // when the file is read: core/policy/policy_file.ts).
  const policyFile = existing(sandbox.policyFile ? [sandbox.policyFile] : []);
  const pins = pinned([...visible, ...policyFile], writable, everywhere);
  // Shallow first, so a deeper bind lands on the shallower one rather than under it.
  const binds = [...new Set([...writable, ...pins])].sort((a, b) => depth(a) - depth(b));
  // Under /dev (full mode's is the machine's) a plain bind would make its devices unusable.
  for (const dir of binds) args.push(isUnder(dir, "/dev") ? "--dev-bind" : "--bind", dir, dir);
  for (const path of readable) args.push("--ro-bind", path, path);
  const emptied: string[] = [];
  for (const path of visible) {
    if (statOf(path)?.isDirectory) args.push("--tmpfs", path), emptied.push(path);
    else args.push("--ro-bind", "/dev/null", path);
  }
  for (const dir of emptied) args.push("--remount-ro", dir);
  // After the writable binds, so that a policy file inside the workspace stays read-only.
  for (const file of policyFile) args.push("--ro-bind", file, file);
  for (const path of files.denied) args.push("--ro-bind", files.stub, path);
  args.push("--chdir", launch.cwd, "--", launch.path, ...launch.argv.slice(1));
  return args;
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
  const probe = ["--die-with-parent", "--unshare-user", "--unshare-pid", "--unshare-uts"];
  const mounts = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  const run = new Deno.Command(bwrap, {
    args: [...probe, "--unshare-net", "--cap-drop", "ALL", ...mounts, "--", "/bin/true"],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).outputSync();
  if (run.success) return null;
  const said = new TextDecoder().decode(run.stderr).trim();
  return `bubblewrap cannot make a sandbox here (${said || `exit ${run.code}`}). User ` +
    "namespaces (every sandbox has one, root's too) may be off: `sudo sysctl -w " +
    "user.max_user_namespaces=15000` and `kernel.unprivileged_userns_clone=1`, or on " +
    "Ubuntu 24.04 and later allow bwrap in AppArmor " +
    "(`kernel.apparmor_restrict_unprivileged_userns=0`, or an AppArmor profile for bwrap).";
}

/**
 * The directories above `paths` (hidden ones, the policy file) that a
 * program could rename (inside a writable directory, or anywhere when
 * `everywhere`), to be bound onto themselves: a mount point cannot be
 * renamed, removed or replaced, so every such path stays where the policy
 * names it for the next program too.
 */
function pinned(paths: string[], writable: string[], everywhere: boolean): string[] {
  const dirs = new Set<string>();
  for (const path of paths) {
    for (let dir = dirname(path); dir !== "/"; dir = dirname(dir)) {
      // The kernel's own file systems rename nothing; /sys stays read-only.
      if (["/proc", "/sys"].some((kernel) => isUnder(dir, kernel))) continue;
      if (everywhere || writable.some((root) => root !== dir && isUnder(dir, root))) dirs.add(dir);
    }
  }
  return [...dirs];
}

/** How many names deep `path` is. */
function depth(path: string): number {
  return path.split("/").filter((name) => name).length;
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
