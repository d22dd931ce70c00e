/**
 * What of the server's environment is Portal's own, and so never reaches a
 * program it starts: its configuration (every `PORTAL_*` variable:
 * `PORTAL_TOKEN`, `PORTAL_DB_PATH`, …) and the variables the person marked
 * secret: each name listed in `PORTAL_SECRET_ENV` (comma-separated) and
 * every `PORTAL_SECRET_*` variable. Only a marked secret may be typed by
 * `secret_env`, so the model cannot have any other variable of the server
 * typed where it can read it back. Names are compared in capitals (Windows
 * ignores their case).
 *
 * A program of the same user can also read the server's initial environment
 * (`/proc/<pid>/environ` on Linux): {@link hideSecretValues} keeps the
 * secrets' values and `PORTAL_TOKEN`'s, then blanks them there.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { childEnvironment, isMarkedSecret } from "./environment.ts";
 *
 * const env = {
 *   PATH: "/bin",
 *   PORTAL_TOKEN: "t0k3n",
 *   PORTAL_SECRET_DB: "pw1",
 *   PORTAL_SECRET_ENV: "MY_DB_PASS, API_KEY",
 *   MY_DB_PASS: "pw2",
 *   HOME: "/home/ada",
 * };
 * assert.deepEqual(childEnvironment(env), { PATH: "/bin", HOME: "/home/ada" });
 * assert.ok(isMarkedSecret("MY_DB_PASS", env) && isMarkedSecret("PORTAL_SECRET_DB", env));
 * assert.ok(!isMarkedSecret("HOME", env) && !isMarkedSecret("PORTAL_TOKEN", env));
 * ```
 * @module
 */

type Env = Record<string, string>;

/** The start of every variable of Portal's own. */
const OWN = "PORTAL_";
/** A variable whose name starts so is a secret. */
export const SECRET_PREFIX = "PORTAL_SECRET_";
/** The variable that lists more secrets by name, comma-separated. */
export const SECRET_LIST = "PORTAL_SECRET_ENV";
/** What the server blanks in its own environment besides the secrets: the HTTP token. */
const TOKEN = "PORTAL_TOKEN";

/** The values {@link hideSecretValues} took out of the environment, by name in capitals. */
const kept = new Map<string, string>();

const key = (name: string) => name.toUpperCase();

/** The names `PORTAL_SECRET_ENV` lists, in capitals. */
function listed(env: Env): Set<string> {
  const list = Object.entries(env).find(([name]) => key(name) === SECRET_LIST)?.[1] ?? "";
  return new Set(list.split(",").map((name) => key(name.trim())).filter((name) => name !== ""));
}

/** Whether `name` is a variable the person marked secret (see the module doc). */
export function isMarkedSecret(name: string, env: Env = Deno.env.toObject()): boolean {
  const upper = key(name);
  return (upper.startsWith(SECRET_PREFIX) && upper !== SECRET_LIST) || listed(env).has(upper);
}

/** `env` without what no program may see: Portal's own variables and the marked secrets. */
export function childEnvironment(env: Env = Deno.env.toObject()): Env {
  const secrets = listed(env);
  return Object.fromEntries(
    Object.entries(env).filter(([name]) => !key(name).startsWith(OWN) && !secrets.has(key(name))),
  );
}

/** The value of the marked secret `name`, or undefined when the server has none. */
export function secretValue(name: string): string | undefined {
  const value = kept.get(key(name));
  if (value !== undefined) return value;
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // not a possible name ("=", NUL): no such variable
  }
}

/**
 * Keeps the values of the marked secrets and of `PORTAL_TOKEN` (`env`, the
 * server's environment at start, holds them), then overwrites them with NUL
 * bytes where the kernel shows the environment the server started with
 * (Linux: the block `/proc/self/stat` locates, written through
 * `/proc/self/mem`), so that `/proc/<pid>/environ` shows each name with an
 * empty value. Without /proc (macOS, Windows) only the children's
 * environment is filtered.
 */
export function hideSecretValues(env: Env = Deno.env.toObject()): void {
  const hidden = new Set(
    Object.keys(env).filter((name) => isMarkedSecret(name, env) || key(name) === TOKEN).map(key),
  );
  for (const name of Object.keys(env)) if (hidden.has(key(name))) kept.set(key(name), env[name]);
  if (hidden.size === 0) return;
  let mem: Deno.FsFile | undefined;
  try {
    const stat = Deno.readTextFileSync("/proc/self/stat");
    // Fields 50 and 51, env_start and env_end; the command name before them may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = Number(fields[50 - 3]);
    const block = new Uint8Array(Number(fields[51 - 3]) - start);
    mem = Deno.openSync("/proc/self/mem", { read: true, write: true });
    mem.seekSync(start, Deno.SeekMode.Start);
    for (let n = 0; n < block.length;) n += mem.readSync(block.subarray(n)) || block.length;
    const decoder = new TextDecoder();
    for (let at = 0; at < block.length;) {
      const end = block.indexOf(0, at) === -1 ? block.length : block.indexOf(0, at);
      const equals = block.indexOf(0x3d, at);
      if (
        equals !== -1 && equals < end && hidden.has(key(decoder.decode(block.subarray(at, equals))))
      ) {
        mem.seekSync(start + equals + 1, Deno.SeekMode.Start);
        mem.writeSync(new Uint8Array(end - equals - 1));
      }
      at = end + 1;
    }
  } catch {
    // No /proc, or no access to it: the programs' own environments are filtered all the same.
  } finally {
    mem?.close();
  }
}
