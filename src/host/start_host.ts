/**
 * How a door starts a host: the same Portal (`portal host` from a binary,
 * `deno run -A --v8-flags=V8_FLAGS MAIN host` from source), detached in a
 * session of its own (so the client's signals and terminal never reach it),
 * in `/` (so it holds no client's directory), with stdin and stdout on
 * /dev/null and stderr appended to its log file in the state directory,
 * which is started afresh once it passes {@link LOG_MAX_BYTES}.
 *
 * @module
 */
import { dirname } from "node:path";
import { createPrivateDir } from "../core/store/paths.ts";
import type { HostAddress } from "./address.ts";
import { V8_FLAGS } from "../limits.ts";

/** A host log this long is moved to `.old` before the next host starts. */
const LOG_MAX_BYTES = 1 << 20;

/** Starts the host of `address` with `env`; the door may exit before it does. */
export function startHost(
  address: HostAddress,
  env: Record<string, string>,
  args: string[],
): Deno.ChildProcess {
  createPrivateDir(dirname(address.log));
  rotate(address.log);
  Deno.writeFileSync(address.log, new Uint8Array(), { append: true, mode: 0o600 });
  // A compiled binary has V8_FLAGS built in (dev/compile.ts).
  const portal = Deno.build.standalone
    ? [Deno.execPath()]
    : [Deno.execPath(), "run", "-A", `--v8-flags=${V8_FLAGS}`, Deno.mainModule];
  // sh opens the log for appending and becomes the host.
  const child = new Deno.Command("/bin/sh", {
    args: ["-c", 'exec "$@" 2>>"$0"', address.log, ...portal, "host", ...args],
    env,
    cwd: "/",
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  child.unref();
  return child;
}

function rotate(log: string): void {
  try {
    if (Deno.statSync(log).size > LOG_MAX_BYTES) Deno.renameSync(log, `${log}.old`);
  } catch { /* no log yet */ }
}
