/**
 * Builds Portal's self-contained binaries into `dist/` with `deno compile`:
 * `deno task compile` builds every target, `deno task compile linux-x64 …`
 * the ones named. Each binary gets exactly {@link PERMISSIONS}, no more; a
 * test runs the server with the same flags, so a change that needs another
 * permission fails there before a release does.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { V8_FLAGS } from "../src/limits.ts";

/**
 * What the server needs: files (database, registry, cwd checks, /proc),
 * environment, running programs, FFI (openpty, posix_spawn) and the network
 * (only for `--http`).
 */
export const PERMISSIONS = [
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-run",
  "--allow-ffi",
  "--allow-net",
  // Who is at the other end of the host's socket, and which runtime directory is this user's.
  "--allow-sys=uid",
];

/** Release name → Rust target triple. */
export const TARGETS: Record<string, string> = {
  "linux-x64": "x86_64-unknown-linux-gnu",
  "linux-arm64": "aarch64-unknown-linux-gnu",
  "macos-x64": "x86_64-apple-darwin",
  "macos-arm64": "aarch64-apple-darwin",
  "windows-x64": "x86_64-pc-windows-msvc",
};

if (import.meta.main) {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const names = Deno.args.length > 0 ? Deno.args : Object.keys(TARGETS);
  for (const name of names) {
    const target = TARGETS[name];
    if (!target) {
      console.error(`unknown target ${name}; known: ${Object.keys(TARGETS).join(", ")}`);
      Deno.exit(2);
    }
    const output = `dist/portal-${name}${name.startsWith("windows") ? ".exe" : ""}`;
    console.error(`== ${output} (${target})`);
    const { success } = await new Deno.Command(Deno.execPath(), {
      // The emulator Worker is loaded by URL, which deno compile does not follow.
      args: [
        "compile",
        ...PERMISSIONS,
        // Built in, for every way the binary runs (a host, a door, --no-host).
        `--v8-flags=${V8_FLAGS}`,
        ...["--include", "src/core/screen/emulator_worker.ts"],
        ...["--target", target, "--output", output, "main.ts"],
      ],
      cwd: root,
    }).spawn().status;
    if (!success) Deno.exit(1);
  }
}
