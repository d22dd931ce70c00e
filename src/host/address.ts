/**
 * Where the host of a records database is found: its socket, named by the
 * Portal version and the database (so a door reaches only a host of its own
 * version that serves its database, and tests that give each case its own
 * database get a host each), and the log its stderr goes to.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hostAddress } from "./address.ts";
 *
 * const run = await Deno.makeTempDir();
 * const env = { XDG_RUNTIME_DIR: run, HOME: "/home/ada" };
 * const { socket, log, database } = await hostAddress(env);
 * assert.equal(database, "/home/ada/.local/state/portal/records/portal.db");
 * assert.match(socket, /\/portal\/host-\d+\.\d+\.\d+-[0-9a-f]{16}\.sock$/);
 * assert.ok(socket.startsWith(`${run}/portal/`));
 * assert.match(log, /^\/home\/ada\/\.local\/state\/portal\/host-[0-9a-f]{16}\.log$/);
 * assert.notEqual((await hostAddress({ ...env, PORTAL_DB_PATH: "/tmp/x.db" })).socket, socket);
 * await Deno.remove(run, { recursive: true });
 * ```
 * @module
 */
import { join, resolve } from "node:path";
import { stateDir, userDbPath } from "../core/store/paths.ts";
import { VERSION } from "../version.ts";
import { runtimeDir } from "../runtime_dir.ts";

/** A host's places. */
export interface HostAddress {
  /** The records database it serves, absolute. */
  database: string;
  /** Its Unix socket (0600, in the private runtime directory). */
  socket: string;
  /** Its stderr, appended to by every host of this database. */
  log: string;
}

/**
 * The address of the host that serves the database `env` names (see
 * {@link userDbPath}), its directory made and checked (runtime_dir.ts);
 * throws when there is no safe place for it. Web Crypto's SHA-256, not
 * node:crypto's: loading that costs a door some 6 ms.
 */
export async function hostAddress(env: Record<string, string>): Promise<HostAddress> {
  const database = resolve(userDbPath(env));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(database));
  const key = Array.from(new Uint8Array(digest, 0, 8), (b) => b.toString(16).padStart(2, "0"))
    .join("");
  return {
    database,
    socket: join(runtimeDir(env), `host-${VERSION}-${key}.sock`),
    log: join(stateDir(env), `host-${key}.log`),
  };
}
