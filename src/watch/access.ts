/**
 * Who may reach the processes through the watch page. The page lets a
 * person type into programs, so its socket and its recordings are guarded
 * like `/mcp`: every request shows a scope's token ({@link WatchScope}: one
 * per link, 256 bits), and reaches that scope's processes only; without a
 * token that opens a scope, 401.
 *
 * The token is never ambient. A link carries it in its fragment
 * (`#token=`), which browsers send to no server; the page's script keeps it
 * in the tab's `sessionStorage` (its own origin's: scheme, host and port),
 * drops it from the address bar, and shows it to this listener only: in the
 * socket's subprotocols (`portal.token.TOKEN`, the one header a script may
 * set on a WebSocket) and as `Authorization: Bearer` on its fetches. No
 * cookie: browsers do not keep cookies apart by port, so any other server
 * on 127.0.0.1 the person later visited, another local user's, would have
 * received it. The page and its files hold no secret (they are the same in
 * every Portal), so they need no token.
 *
 * `Host` and `Origin` are checked for every request as for `/mcp`
 * ({@link RequestGuard.refuseSource}: DNS rebinding, and an `Origin` must be
 * the page's own, 403 otherwise), so no other page, even one on another
 * port of this machine, can drive the socket.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RequestGuard } from "../http_guard.ts";
 * import { WatchScope } from "./scope.ts";
 * import { WatchAccess } from "./access.ts";
 *
 * const guard = new RequestGuard({ listenHost: "127.0.0.1", allowHosts: [], token: "unused" });
 * const scope = new WatchScope("this agent's processes", () => ({ watchedAll: () => [] }));
 * const access = new WatchAccess(guard, () => [scope]);
 * const get = (path: string, headers: Record<string, string> = {}) =>
 *   new Request(`http://127.0.0.1:8080${path}`, { headers: { host: "127.0.0.1:8080", ...headers } });
 * assert.deepEqual(access.admit(get("/watch/")), { scope: undefined });
 * assert.equal("refusal" in access.admit(get("/watch/socket")), true);
 * const bearer = { authorization: `Bearer ${scope.token}` };
 * assert.deepEqual(access.admit(get("/watch/cast?id=1", bearer)), { scope });
 * const offered = { "sec-websocket-protocol": `portal.watch, portal.token.${scope.token}` };
 * assert.deepEqual(access.admit(get("/watch/socket", offered)), { scope });
 * const other = { ...offered, origin: "http://127.0.0.1:9999" };
 * assert.deepEqual(access.admit(get("/watch/socket", other)), {
 *   refusal: { status: 403, reason: guard.refuseSource(get("/", other))!.reason },
 * });
 * ```
 * @module
 */
import type { Refusal, RequestGuard } from "../http_guard.ts";
import type { WatchScope } from "./scope.ts";

/** The path every part of the page lives under. */
export const WATCH_PATH = "/watch";

/** The subprotocol the page's socket speaks (the server answers with it). */
export const SOCKET_PROTOCOL = "portal.watch";

/** How the page offers its token among the socket's subprotocols. */
const TOKEN_PROTOCOL = "portal.token.";

/** What a request may reach: a refusal, or the scope its token opens (none for the page's files). */
export type Admission = { refusal: Refusal } | { scope: WatchScope | undefined };

/** Checks every request to the watch page. */
export class WatchAccess {
  readonly #guard: RequestGuard;
  readonly #scopes: () => Iterable<WatchScope>;

  /** `scopes`: the open ones, whose tokens are accepted. */
  constructor(guard: RequestGuard, scopes: () => Iterable<WatchScope>) {
    this.#guard = guard;
    this.#scopes = scopes;
  }

  /** Whether `request` may pass, and to which scope's processes. */
  admit(request: Request): Admission {
    const source = this.#guard.refuseSource(request);
    if (source) return { refusal: source };
    const path = new URL(request.url).pathname;
    const page = path === WATCH_PATH || path === `${WATCH_PATH}/` ||
      path.startsWith(`${WATCH_PATH}/assets/`);
    if (page) return { scope: undefined };
    const scope = this.#opened(tokenOf(request));
    if (scope) return { scope };
    return {
      refusal: {
        status: 401,
        reason: "Open the watch page through its link (process_watch, or `portal watch`): it " +
          "carries the token. A link whose client has ended opens nothing.",
      },
    };
  }

  /** The scope `token` opens; every open scope's is compared, each in constant time. */
  #opened(token: string | undefined): WatchScope | undefined {
    if (!token) return undefined;
    const given = new TextEncoder().encode(token);
    let found: WatchScope | undefined;
    for (const scope of this.#scopes()) if (scope.opens(given)) found = scope;
    return found;
  }
}

/** The subprotocols a WebSocket handshake offers. */
export function offeredProtocols(request: Request): string[] {
  return (request.headers.get("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim());
}

/** The token `request` shows: its bearer token, else the one offered among its socket's subprotocols. */
function tokenOf(request: Request): string | undefined {
  const bearer = /^Bearer +(\S+) *$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  const offered = offeredProtocols(request).find((p) => p.startsWith(TOKEN_PROTOCOL));
  return bearer ?? offered?.slice(TOKEN_PROTOCOL.length);
}
