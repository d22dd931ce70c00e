/**
 * Who may open the watch page, its files and its socket. The page lets a
 * person type into programs, so it is guarded like `/mcp`, with a browser's
 * ways: the link carries a random token ({@link generateToken}: 256 bits),
 * good for the server's lifetime; the page answers it with an HttpOnly,
 * SameSite=Strict cookie (then its script drops the token from the address
 * bar), and every later request shows the cookie. Without either, every
 * request gets 401. `Host` and `Origin` are checked as for `/mcp`
 * ({@link RequestGuard.refuseSource}: DNS rebinding, and an `Origin` must be
 * the page's own: scheme, host and port, 403 otherwise), so no other page,
 * even one on another port of this machine, can drive its socket.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RequestGuard } from "../mcp/http_guard.ts";
 * import { WatchAccess } from "./access.ts";
 *
 * const token = "t0ken";
 * const guard = new RequestGuard({ listenHost: "127.0.0.1", allowHosts: [], token });
 * const access = new WatchAccess(token, guard);
 * const get = (path: string, headers: Record<string, string> = {}) =>
 *   new Request(`http://127.0.0.1:8080${path}`, { headers: { host: "127.0.0.1:8080", ...headers } });
 * assert.equal(access.refuse(get("/watch/"), 8080)?.status, 401);
 * assert.equal(access.refuse(get("/watch/?token=t0ken"), 8080), undefined);
 * assert.equal(access.refuse(get("/watch/assets/watch.js?token=t0ken"), 8080)?.status, 401);
 * const cookie = { cookie: access.cookie(8080).split(";")[0] };
 * assert.equal(access.refuse(get("/watch/socket", cookie), 8080), undefined);
 * const other = { ...cookie, origin: "http://127.0.0.1:9999" };
 * assert.equal(access.refuse(get("/watch/socket", other), 8080)?.status, 403);
 * ```
 * @module
 */
import { type Refusal, type RequestGuard, sameInConstantTime } from "../mcp/http_guard.ts";

/** The path every part of the page lives under. */
export const WATCH_PATH = "/watch";

/** Checks every request to the watch page. */
export class WatchAccess {
  readonly token: string;
  readonly #expected: Uint8Array;
  readonly #guard: RequestGuard;

  constructor(token: string, guard: RequestGuard) {
    if (token === "") throw new Error("the watch token must not be empty");
    this.token = token;
    this.#expected = new TextEncoder().encode(token);
    this.#guard = guard;
  }

  /**
   * The refusal for `request` to the listener on `port`, or undefined. The
   * token in the query is taken for the page itself only: its files and its
   * socket need the cookie (or an `Authorization: Bearer` header).
   */
  refuse(request: Request, port: number): Refusal | undefined {
    const source = this.#guard.refuseSource(request);
    if (source) return source;
    const url = new URL(request.url);
    const page = url.pathname === `${WATCH_PATH}/` || url.pathname === WATCH_PATH;
    const given = [
      cookieOf(request, cookieName(port)),
      /^Bearer +(\S+) *$/i.exec(request.headers.get("authorization") ?? "")?.[1],
      page ? url.searchParams.get("token") : undefined,
    ];
    if (given.some((token) => token && this.#valid(token))) return undefined;
    return {
      status: 401,
      reason: "Open the watch page through its link (process_watch, or `portal watch`): it " +
        "carries the token",
    };
  }

  /** The `Set-Cookie` value that lets this browser in, on the listener at `port`. */
  cookie(port: number): string {
    return `${cookieName(port)}=${this.token}; Path=${WATCH_PATH}; HttpOnly; SameSite=Strict`;
  }

  #valid(token: string): boolean {
    return sameInConstantTime(new TextEncoder().encode(token), this.#expected);
  }
}

/** Cookies are not kept apart by port: each listener has its own name. */
function cookieName(port: number): string {
  return `portal_watch_${port}`;
}

function cookieOf(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}
