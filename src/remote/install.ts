/**
 * `portal remote install MACHINE` (and `uninstall`): sets another machine up
 * through the same ssh as the tools use, needing no network there. What it
 * copies: Portal's build (dev/build.ts: the one this Portal runs, made from
 * the clone it runs from) and a Deno runtime when the machine has none of
 * its own (this one when OS and architecture match, else the `@deno/<platform>`
 * npm package's for its `uname`), or a release binary, which is both. Into
 * `~/.local/share/portal/<id>/` (`<id>`: version+digest, so versions sit side
 * by side), as a gzipped tar checked there against SHA-256 sums, then renamed
 * into place (a half-copied version never runs), with a launcher at
 * `~/.local/bin/portal` (written beside, then renamed, once the version has
 * answered `--version` there). No shell file there is edited: ssh runs the
 * launcher by its path (ssh_command.ts). A second install of the same build
 * copies nothing.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { VERSION } from "../version.ts";
import { readVar, REMOTE_INSTALL } from "../env_vars.ts";
import { runtimeDir } from "../runtime_dir.ts";
import { MACHINE } from "../platform.ts";
import { LAUNCHER, sshArgv } from "./ssh_command.ts";

/** Where versions go there, from the user's home (Portal's data directory: programs.db stays). */
const SHARE = ".local/share/portal";

/** A line the launcher holds, which names what put it there (uninstall removes only such one). */
const MARK = "# portal-launcher";

/** What `uname -s` and `uname -m` say → the names the `deno` npm package's binaries use. */
const OS: Record<string, string> = { Linux: "linux", Darwin: "darwin" };
const ARCH: Record<string, string> = {
  x86_64: "x64",
  amd64: "x64",
  aarch64: "arm64",
  arm64: "arm64",
};

/** Prints to stderr: a server's stdout is MCP's. */
type Say = (line: string) => void;

/** Runs `script` there under `sh` (one word, no single quote in it), `input` on its stdin. */
async function remote(
  machine: string,
  env: Record<string, string>,
  script: string,
  args: string[] = [],
  input?: ReadableStream<Uint8Array>,
): Promise<{ code: number; out: string; err: string }> {
  const argv = sshArgv(machine, env, runtimeDir(env), {
    command: `sh -c '${script}' sh ${args.join(" ")}`,
  });
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    stdin: input ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const fed = input?.pipeTo(child.stdin).catch(() => {});
  const { code, stdout, stderr } = await child.output();
  await fed;
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes).trim();
  return { code, out: text(stdout), err: text(stderr) };
}

/** What the machine is, whether it has a Deno, and whether version `id` is there whole. */
const PROBE = [
  'printf "os=%s\\narch=%s\\nhome=%s\\n" "$(uname -s)" "$(uname -m)" "$HOME"',
  'd=$(command -v deno 2>/dev/null) && printf "deno=%s\\ndeno_version=%s\\n" "$d" "$("$d" --version 2>/dev/null | head -n 1)"',
  `cd "$HOME/${SHARE}/$1" 2>/dev/null && { sha256sum -c SHA256SUMS || shasum -a 256 -c SHA256SUMS; } >/dev/null 2>&1 && echo installed=yes`,
  `grep -qx "${MARK} $1" "$HOME/${LAUNCHER}" 2>/dev/null && echo launcher=yes`,
  "true",
].join("\n");

/** Unpacks stdin into a directory beside the versions, checks it, renames it into place. */
const PLACE = [
  "set -e",
  `base="$HOME/${SHARE}"; bin=$(dirname "$HOME/${LAUNCHER}")`,
  'mkdir -p "$base" "$bin"',
  'tmp=$(mktemp -d "$base/.incoming-XXXXXX")',
  'trap "rm -rf \\"$tmp\\"" EXIT',
  'gzip -dc | tar -xf - -C "$tmp"',
  'cd "$tmp/$1"',
  "if command -v sha256sum >/dev/null 2>&1; then sha256sum -c --quiet SHA256SUMS; " +
  "else shasum -a 256 -c --quiet SHA256SUMS; fi",
  'cd "$base"',
  'if [ -e "$1" ]; then mv "$1" "$tmp/replaced"; fi',
  'mv "$tmp/$1" "$1"',
  // A version that does not run there (a Deno for another libc, a noexec home) goes again, and
  // what it replaced comes back: the launcher moves only to a version that answers.
  'if ! "$1/launcher" --version >"$tmp/said" 2>&1; then',
  '  rm -rf "$1"; if [ -e "$tmp/replaced" ]; then mv "$tmp/replaced" "$1"; fi',
  '  echo "it was copied whole but does not run there, so it was taken out again:" >&2',
  '  cat "$tmp/said" >&2; exit 3',
  "fi",
  'cp "$1/launcher" "$bin/.portal.new" && chmod 755 "$bin/.portal.new"',
  `mv -f "$bin/.portal.new" "$HOME/${LAUNCHER}"`,
  'cat "$tmp/said"',
].join("\n");

/** Removes every version (`<version>+<digest>`), what a copy left, and the launcher if it is ours. */
const REMOVE = [
  `for d in "$HOME/${SHARE}"/[0-9]*+* "$HOME/${SHARE}"/.incoming-*; do`,
  '  if [ -d "$d" ]; then rm -rf "$d" && echo "removed $d"; fi',
  "done",
  `if grep -q "^${MARK} " "$HOME/${LAUNCHER}" 2>/dev/null; then`,
  `  rm -f "$HOME/${LAUNCHER}" && echo "removed $HOME/${LAUNCHER}"`,
  "fi",
].join("\n");

/** `key=value` lines → a record (split at the first `=`). */
function fields(text: string): Record<string, string> {
  const pairs = text.split("\n").map((line) => /^([^=]*)=(.*)$/.exec(line));
  return Object.fromEntries(pairs.filter((m) => m !== null).map(([, key, value]) => [key, value]));
}

/** Whether `path` names something. */
function exists(path: string): Promise<boolean> {
  return Deno.stat(path).then(() => true, () => false);
}

/**
 * The build to copy (dev/build.ts): the running one (beside its main.js), or one made from the
 * clone it runs from; its directory, and its id and files as its build.json says.
 */
async function buildToCopy(temp: string): Promise<{ dir: string; id: string; files: string[] }> {
  const root = dirname(fileURLToPath(Deno.mainModule));
  let dir = root;
  if (!(await exists(join(root, "build.json")))) {
    const script = join(root, "dev", "build.ts");
    if (!(await exists(script))) {
      throw new Error(
        `this Portal (${Deno.mainModule}) is neither a build nor a clone: run ` +
          "portal remote install from a clone, the npm package (npx -y portal-mcp) or a release binary",
      );
    }
    dir = join(temp, "build");
    const { success, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `--lock=${join(root, "dev", "deno.lock")}`, script, "--out", dir],
      cwd: root,
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!success) {
      throw new Error(`making the build (${script}) failed: ${new TextDecoder().decode(stderr)}`);
    }
  }
  const { id, files } = JSON.parse(await Deno.readTextFile(join(dir, "build.json")));
  return { dir, id, files: [...Object.keys(files), "build.json"] };
}

/** A Deno 2 of at least this one's minor version runs the build. */
function denoFits(versionLine: string | undefined): boolean {
  const [major, minor] = Deno.version.deno.split(".").map(Number);
  const m = /^deno (\d+)\.(\d+)\./.exec(versionLine ?? "");
  return m !== null && Number(m[1]) === major && Number(m[2]) >= minor;
}

/**
 * A Deno binary for `os`-`arch` (the `deno` npm package's names): this one
 * when they are this machine's, else `@deno/<platform>`'s, of this Deno's
 * version, fetched once with npm (this machine's network) into Portal's cache.
 */
async function denoFor(os: string, arch: string, env: Record<string, string>): Promise<string> {
  if (os === MACHINE.os && arch === MACHINE.arch && !Deno.build.standalone) {
    return Deno.execPath();
  }
  const name = `@deno/${os}-${arch}${os === "linux" ? "-glibc" : ""}`;
  const cache = join(
    env.XDG_CACHE_HOME || join(env.HOME ?? "/tmp", ".cache"),
    "portal",
    `deno-${Deno.version.deno}-${os}-${arch}`,
  );
  const binary = join(cache, "deno");
  if (await exists(binary)) return binary;
  await Deno.mkdir(cache, { recursive: true });
  const packed = await new Deno.Command("npm", {
    args: ["pack", `${name}@${Deno.version.deno}`, "--pack-destination", cache, "--silent"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const tarball = new TextDecoder().decode(packed.stdout).trim().split("\n").pop() ?? "";
  if (!packed.success || tarball === "") {
    throw new Error(
      `the machine has no Deno, and npm could not fetch ${name}@${Deno.version.deno} for it: ` +
        new TextDecoder().decode(packed.stderr).trim(),
    );
  }
  const untar = await new Deno.Command("tar", {
    args: ["-xzf", join(cache, tarball), "-C", cache, "--strip-components=1", "package/deno"],
  }).output();
  await Deno.remove(join(cache, tarball));
  if (!untar.success) throw new Error(`${name}'s tarball holds no package/deno`);
  return binary;
}

/** SHA-256 of a file, in hex. */
async function sha256(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Installs Portal on `machine`: the bytes sent through ssh (gzipped; 0: it was there already).
 * Throws with what went wrong.
 */
export async function install(
  machine: string,
  env: Record<string, string>,
  say: Say,
): Promise<number> {
  const temp = await Deno.makeTempDir({ prefix: "portal-install-" });
  try {
    // A release binary is its own runtime; otherwise the build, made now from a clone.
    const binary = Deno.build.standalone ? Deno.execPath() : undefined;
    const build = binary ? undefined : await buildToCopy(temp);
    const id = build ? build.id : `${VERSION}+${(await sha256(binary!)).slice(0, 12)}`;
    const probe = await remote(machine, env, PROBE, [id]);
    if (probe.code !== 0) {
      throw new Error(`ssh ${machine} failed (exit ${probe.code}): ${probe.err}`);
    }
    const there = fields(probe.out);
    if (there.installed === "yes" && there.launcher === "yes") {
      say(`${machine}: Portal ${id} is installed (~/${SHARE}/${id}); nothing copied.`);
      return 0;
    }
    const os = OS[there.os];
    const arch = ARCH[there.arch];
    if (!os || !arch) {
      throw new Error(
        `${machine} is ${there.os} ${there.arch}: Portal's builds run on Linux and ` +
          "macOS, x86_64 and arm64",
      );
    }
    // The launcher names these paths inside double quotes: nothing in them may end the quotes.
    const odd = [there.home, there.deno ?? ""].find((path) => !/^[\w./+@ -]*$/.test(path));
    if (odd !== undefined || !there.home) {
      throw new Error(
        `${machine}'s home or Deno is at a path a launcher cannot name: ` +
          JSON.stringify(odd ?? there.home),
      );
    }
    const dir = `${there.home}/${SHARE}/${id}`;
    const files: Record<string, string> = {};
    let run: string;
    if (binary) {
      if (os !== MACHINE.os || arch !== MACHINE.arch) {
        throw new Error(
          `this release binary is for ${MACHINE.os}-${MACHINE.arch}, ${machine} is ` +
            `${os}-${arch}: install its release binary there, or run portal remote install from ` +
            "the npm package (npx -y portal-mcp remote install MACHINE), which brings either Deno",
        );
      }
      files.portal = binary;
      run = `"${dir}/portal"`;
    } else {
      for (const name of build!.files) files[name] = join(build!.dir, name);
      if (denoFits(there.deno_version)) {
        run = `"${there.deno}" run -A --no-config "${dir}/main.js"`;
      } else {
        files.deno = await denoFor(os, arch, env);
        run = `"${dir}/deno" run -A --no-config "${dir}/main.js"`;
      }
    }
    const stage = join(temp, "stage", id);
    await Deno.mkdir(stage, { recursive: true });
    const sums: string[] = [];
    for (const [name, from] of Object.entries(files)) {
      await Deno.mkdir(dirname(join(stage, name)), { recursive: true });
      await Deno.symlink(from, join(stage, name));
      sums.push(`${await sha256(from)}  ${name}`);
    }
    await Deno.writeTextFile(
      join(stage, "launcher"),
      `#!/bin/sh\n${MARK} ${id}\nexec ${run} "$@"\n`,
      { mode: 0o755 },
    );
    sums.push(`${await sha256(join(stage, "launcher"))}  launcher`);
    await Deno.writeTextFile(join(stage, "SHA256SUMS"), sums.join("\n") + "\n");

    // tar follows the links (-h); the stream is gzipped here and counted on its way to ssh.
    const tar = new Deno.Command("tar", {
      args: ["-chf", "-", "-C", join(temp, "stage"), id],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let copied = 0;
    const counted = tar.stdout.pipeThrough(new CompressionStream("gzip")).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          copied += chunk.byteLength;
          out.enqueue(chunk);
        },
      }),
    );
    // Not tar.output(): a copy cut short leaves stdout's pipe locked a while, and output() throws.
    const tarSaid = new Response(tar.stderr).text();
    const placed = await remote(machine, env, PLACE, [id], counted);
    // The stream's end, or its cancelling when the copy is cut short, ends tar.
    const tarred = await tar.status;
    // Checked first: a copy cut short fails tar too (its pipe closed), which says less.
    if (placed.code !== 0) {
      throw new Error(
        `copying to ${machine} failed (exit ${placed.code}), nothing was put in ` +
          `place: ${placed.err}`,
      );
    }
    if (!tarred.success) throw new Error(`tar failed: ${await tarSaid}`);
    say(
      `${machine}: ${placed.out} in ~/${SHARE}/${id}` +
        (files.deno ? ", with a Deno" : "") + `, run by ~/${LAUNCHER}; ` +
        `${(copied / 1e6).toFixed(1)} MB copied.`,
    );
    return copied;
  } finally {
    await Deno.remove(temp, { recursive: true }).catch(() => {});
  }
}

/**
 * With `PORTAL_REMOTE_INSTALL=auto` in `env` (a person's setting): installs
 * Portal on `machine`, whose link just failed; whether it copied anything (a
 * link worth opening again). Its report goes to stderr (the host's log).
 */
export async function installedAtFirstUse(
  machine: string,
  env: Record<string, string>,
): Promise<boolean> {
  if (!readVar(REMOTE_INSTALL, env)) return false;
  const say = (line: string) => console.error(`portal: ${line}`);
  try {
    return (await install(machine, env, say)) > 0;
  } catch (error) {
    say(`installing Portal on ${machine} at first use failed: ${(error as Error).message}`);
    return false;
  }
}

/**
 * `portal remote install|uninstall MACHINE` (uninstall: removes every version and the
 * launcher): the exit status.
 */
export async function remoteCommand(
  verb: "install" | "uninstall",
  machine: string,
  env: Record<string, string>,
): Promise<number> {
  try {
    if (verb === "install") {
      await install(machine, env, (line) => console.log(line));
      return 0;
    }
    const { code, out, err } = await remote(machine, env, REMOVE);
    if (code !== 0) throw new Error(`ssh ${machine} failed (exit ${code}): ${err}`);
    console.log(out === "" ? `${machine}: no Portal installed by portal remote install.` : out);
    return 0;
  } catch (error) {
    console.error(`portal: ${(error as Error).message}`);
    return 1;
  }
}
