/**
 * The watch page as a service any long-lived Portal process starts: a
 * loopback listener of its own (127.0.0.1, a port the system picks or
 * `--watch-port`), and the same routes under `/watch` of the `--http`
 * listener ({@link WatchService.handler}). It knows the processes through
 * {@link WatchScope}s: one per client (what `process_watch` links to) and
 * one for everything (what `portal watch` links to).
 *
 * Routes, each through {@link WatchAccess} first: `/watch/` (the page) and
 * `/watch/assets/NAME` (its files), which hold no secret; `/watch/socket`
 * (its WebSocket, see page_socket.ts) and `/watch/cast?id=ID` (a PTY
 * process's asciicast, for download and replay), which reach the processes
 * of the scope whose token the request shows, and no other.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WatchService } from "./service.ts";
 *
 * const service = WatchService.listen(0);
 * const scope = service.open({ watchedAll: () => [] });
 * const link = new URL(service.link(scope, 3));
 * assert.equal(link.search, "?id=3");
 * assert.equal(link.hash, `#token=${scope.token}`);
 * const page = await fetch(link);
 * assert.match(page.headers.get("content-security-policy")!, /script-src 'self'/);
 * assert.equal(page.headers.get("set-cookie"), null);
 * await page.body?.cancel();
 * const cast = new URL("cast?id=3", link);
 * const refused = await fetch(cast);
 * assert.equal(refused.status, 401);
 * await refused.body?.cancel();
 * const missing = await fetch(cast, { headers: { authorization: `Bearer ${scope.token}` } });
 * assert.equal(missing.status, 404);
 * await missing.body?.cancel();
 * await service.close();
 * ```
 * @module
 */
import { PortalError } from "../errors.ts";
import { generateToken, RequestGuard } from "../http_guard.ts";
import { ASCIICAST_TYPE } from "../core/recording/asciicast.ts";
import { offeredProtocols, SOCKET_PROTOCOL, WATCH_PATH, WatchAccess } from "./access.ts";
import { ASSETS, PAGE } from "./assets.ts";
import { servePage } from "./page_socket.ts";
import { type Elsewhere, type ProcessSource, WatchScope } from "./scope.ts";

/** What every answer of the page says: nothing kept, framed, leaked in a Referer or loaded. */
const HEADERS = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  // Scripts only from here, none inline; xterm.js sets styles on its elements.
  "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self' " +
    "'unsafe-inline'; connect-src 'self'; img-src 'self' data:; font-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

/** Bytes of a recording sent per chunk of the download. */
const CAST_CHUNK_CHARS = 256 * 1024;

/** The watch page of one Portal process. */
export class WatchService {
  /** The page on the service's own listener (no token). */
  readonly url: string;
  /** Every process of every client: `portal watch`'s scope. */
  readonly everything: WatchScope;
  /** The scopes whose tokens open something. */
  readonly #scopes = new Set<WatchScope>();
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  /** What {@link everything} shows: every process of the server (see {@link showAll}). */
  #all: ProcessSource = { watchedAll: () => [] };
  /** The rows of processes on other machines (see {@link listElsewhere}). */
  #elsewhere: Elsewhere = () => [];

  /** Listens on 127.0.0.1:`port` (0: a free port); throws when it cannot (`AddrInUse`). */
  static listen(port: number): WatchService {
    return new WatchService(port);
  }

  private constructor(port: number) {
    this.everything = new WatchScope(
      "every client's processes",
      () => this.#all,
      (source) => this.#elsewhere(source),
    );
    this.#scopes.add(this.everything);
    // Only its Host and Origin checks are used here: its token is the one `/mcp` asks for.
    const token = generateToken();
    const guard = new RequestGuard({ listenHost: "127.0.0.1", allowHosts: [], token });
    this.#server = Deno.serve({
      hostname: "127.0.0.1",
      port,
      // Deno's default prints the address on stdout, which a server keeps for the protocol.
      onListen: () => {},
    }, this.handler(guard));
    this.url = `http://127.0.0.1:${this.#server.addr.port}${WATCH_PATH}/`;
  }

  /** Where {@link everything} finds every process of the server (a manager that sees all). */
  showAll(source: ProcessSource): void {
    this.#all = source;
  }

  /** Where every scope finds the rows of its client's processes on other machines. */
  listElsewhere(elsewhere: Elsewhere): void {
    this.#elsewhere = elsewhere;
  }

  /** A scope for one client's processes (`source`); {@link end} it when the client goes. */
  open(source: ProcessSource): WatchScope {
    const scope = new WatchScope(
      "this agent's processes",
      () => source,
      (source) => this.#elsewhere(source),
    );
    this.#scopes.add(scope);
    return scope;
  }

  /** The client of `scope` has gone: its pages close, its token opens nothing more. */
  end(scope: WatchScope): void {
    this.#scopes.delete(scope);
    scope.close();
  }

  /**
   * The link a person opens: the page of `scope`, showing process `id` (or
   * the process of that name) first if given. Its token is in the fragment,
   * which the browser sends to no server.
   */
  link(scope: WatchScope, id?: number | string): string {
    const query = new URLSearchParams();
    if (typeof id === "number") query.set("id", String(id));
    else if (id !== undefined) query.set("name", id);
    const search = query.size > 0 ? `?${query}` : "";
    return `${this.url}${search}#token=${scope.token}`;
  }

  /** The routes under `/watch`, for a listener whose `Host`/`Origin` rules are `guard`'s. */
  handler(guard: RequestGuard): (request: Request) => Response {
    const access = new WatchAccess(guard, () => this.#scopes);
    return (request) => {
      const admitted = access.admit(request);
      if ("refusal" in admitted) return answer(admitted.refusal.status, admitted.refusal.reason);
      try {
        return this.#route(request, admitted.scope);
      } catch (error) {
        if (!(error instanceof PortalError)) throw error;
        return answer(error.kind === "not_found" ? 404 : 400, error.message);
      }
    };
  }

  /** Stops listening; open pages are closed. */
  async close(): Promise<void> {
    for (const scope of this.#scopes.values()) scope.close();
    await this.#server.shutdown();
  }

  /** Answers `request`; `scope` is the one its token opens (none: it may reach the page's files only). */
  #route(request: Request, scope: WatchScope | undefined): Response {
    const url = new URL(request.url);
    if (request.method !== "GET") return answer(405, "Only GET.");
    const path = url.pathname;
    if (path === WATCH_PATH || path === `${WATCH_PATH}/`) {
      return new Response(PAGE.body, { headers: { ...HEADERS, "content-type": PAGE.type } });
    }
    const asset = ASSETS.get(path.slice(`${WATCH_PATH}/assets/`.length));
    if (path.startsWith(`${WATCH_PATH}/assets/`) && asset) {
      return new Response(asset.body, { headers: { ...HEADERS, "content-type": asset.type } });
    }
    if (scope !== undefined && path === `${WATCH_PATH}/socket`) {
      if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
        return answer(400, "This is the page's WebSocket.");
      }
      // A browser that offered subprotocols (the page's token among them) wants one chosen.
      const offered = offeredProtocols(request).includes(SOCKET_PROTOCOL);
      const { socket, response } = Deno.upgradeWebSocket(
        request,
        offered ? { protocol: SOCKET_PROTOCOL } : {},
      );
      servePage(socket, scope);
      return response;
    }
    if (scope !== undefined && path === `${WATCH_PATH}/cast`) {
      return this.#cast(scope, Number(url.searchParams.get("id")));
    }
    return answer(404, "Not found.");
  }

  /** A PTY process's asciicast, made line by line as it is sent. */
  #cast(scope: WatchScope, id: number): Response {
    const { name, lines } = scope.find(id).cast();
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        let chunk = "";
        for (let next = lines.next(); !next.done; next = lines.next()) {
          chunk += next.value;
          if (chunk.length >= CAST_CHUNK_CHARS) break;
        }
        if (chunk === "") controller.close();
        else controller.enqueue(encoder.encode(chunk));
      },
    });
    return new Response(body, {
      headers: {
        ...HEADERS,
        "content-type": ASCIICAST_TYPE,
        "content-disposition": `attachment; filename="${name}"`,
      },
    });
  }
}

/** A short page (or text) for a refusal or a miss. */
function answer(status: number, reason: string): Response {
  return new Response(`${reason}\n`, {
    status,
    headers: { ...HEADERS, "content-type": "text/plain; charset=utf-8" },
  });
}
