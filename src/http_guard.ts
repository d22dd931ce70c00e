/**
 * Who may use the HTTP endpoint. A web page can make a browser send requests
 * to a server on loopback, and with DNS rebinding (its own name resolving to
 * 127.0.0.1) even read the answers; so every request must name this server in
 * `Host`, written the usual way (`name` or `name:port`, the name exactly one
 * of the server's: no `127.1`, `0x7f.1` or `localhost.`), come from no
 * foreign `Origin` (browsers always send one; the server's own is the one
 * its `Host` names, compared by scheme, host and port, so another port of
 * this machine is foreign), and carry the bearer token, which no web page
 * and no other local user knows.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RequestGuard } from "./http_guard.ts";
 *
 * const guard = new RequestGuard({ listenHost: "127.0.0.1", allowHosts: [], token: "s3cret" });
 * const request = (headers: Record<string, string>) =>
 *   new Request("http://127.0.0.1:8080/mcp", { method: "POST", headers });
 * const auth = { host: "127.0.0.1:8080", authorization: "Bearer s3cret" };
 * assert.equal(guard.refuse(request(auth)), undefined);
 * assert.equal(guard.refuse(request({ ...auth, authorization: "Bearer nope" }))?.status, 401);
 * assert.equal(guard.refuse(request({ ...auth, origin: "http://evil.example" }))?.status, 403);
 * assert.equal(guard.refuse(request({ ...auth, host: "evil.example:8080" }))?.status, 403);
 * assert.equal(guard.refuse(request({ ...auth, host: "127.1:8080" }))?.status, 403);
 * assert.equal(guard.refuse(request({ ...auth, origin: "http://127.0.0.1:8080" })), undefined);
 * assert.equal(guard.refuse(request({ ...auth, origin: "http://127.0.0.1:9999" }))?.status, 403);
 * assert.equal(guard.refuse(request({ ...auth, origin: "https://127.0.0.1:8080" }))?.status, 403);
 * ```
 * @module
 */

/** The names a loopback server is reached by, as a URL's `hostname` spells them. */
const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

/** A `Host` written the usual way: a name (an IPv6 address in brackets), then maybe a port. */
const USUAL_HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9][a-z0-9.-]*)(?::[1-9][0-9]{0,4})?$/i;

/** Addresses that mean "every interface": no client names the server so. */
const WILDCARD = ["0.0.0.0", "::", "[::]"];

/** Why a request is refused: the HTTP status and a message for the client. */
export interface Refusal {
  status: 401 | 403;
  reason: string;
}

/** What the guard accepts. */
export interface GuardOptions {
  /** The address the server listens on (`--http` HOST). */
  listenHost: string;
  /** More names to accept (`--allow-host`). */
  allowHosts: readonly string[];
  /** The bearer token every request must carry. */
  token: string;
}

/** The checks every HTTP request passes before it reaches MCP. */
export class RequestGuard {
  /** Accepted `hostname`s of `Host` and `Origin`, lower case, IPv6 in brackets. */
  readonly hosts: ReadonlySet<string>;
  #expected: Uint8Array;

  constructor(options: GuardOptions) {
    // An empty token would let a request with none pass.
    if (options.token === "") throw new Error("the HTTP token must not be empty");
    const listen = options.listenHost.includes(":") && !options.listenHost.startsWith("[")
      ? `[${options.listenHost}]`
      : options.listenHost;
    const named = [listen, ...options.allowHosts].map((h) => h.toLowerCase());
    this.hosts = new Set([...LOOPBACK, ...named.filter((h) => !WILDCARD.includes(h))]);
    this.#expected = new TextEncoder().encode(options.token);
  }

  /** The refusal for `request`, or `undefined` when it may pass. */
  refuse(request: Request): Refusal | undefined {
    const refusal = this.refuseSource(request);
    if (refusal) return refusal;
    if (!this.#authorized(request.headers.get("authorization") ?? "")) {
      return {
        status: 401,
        reason: "Send the server's token as Authorization: Bearer TOKEN (PORTAL_TOKEN, or the " +
          "token it printed on stderr at start)",
      };
    }
    return undefined;
  }

  /**
   * The refusal for where `request` comes from (`Host` and `Origin`), whatever
   * its credentials: the checks the watch page shares with `/mcp`.
   */
  refuseSource(request: Request): Refusal | undefined {
    const host = request.headers.get("host");
    const name = host === null ? undefined : USUAL_HOST.exec(host)?.[1].toLowerCase();
    if (host === null || name === undefined || !this.hosts.has(name)) {
      return { status: 403, reason: `Host ${JSON.stringify(host)} is not this server's name` };
    }
    const origin = request.headers.get("origin");
    if (origin !== null && !isOwnOrigin(origin, host)) {
      return {
        status: 403,
        reason: `Origin ${JSON.stringify(origin)} may not use this server (only its own, ` +
          `http://${host}, may)`,
      };
    }
    return undefined;
  }

  #authorized(header: string): boolean {
    const given = new TextEncoder().encode(/^Bearer +(\S+) *$/i.exec(header)?.[1] ?? "");
    return sameInConstantTime(given, this.#expected);
  }
}

/** Whether `given` equals `expected`, compared so that timing tells nothing of `expected`. */
export function sameInConstantTime(given: Uint8Array, expected: Uint8Array): boolean {
  let difference = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) difference |= expected[i] ^ (given[i] ?? 0);
  return difference === 0;
}

/** Whether `hostname` (`--http` HOST) is reachable from this machine only. */
export function isLoopback(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return name === "localhost" || name === "::1" || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** A fresh random token: 32 bytes, base64url. */
export function generateToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return bytes.toBase64({ alphabet: "base64url", omitPadding: true });
}

/**
 * Whether `origin` is the origin of the server that `host` (a request's
 * `Host`) names: `http://`, that host, that port.
 */
export function isOwnOrigin(origin: string, host: string): boolean {
  try {
    return new URL(origin).origin === new URL(`http://${host}`).origin;
  } catch {
    return false;
  }
}
