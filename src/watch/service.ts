/**
 * The watch page as a service any long-lived Portal process starts: a
 * loopback listener of its own (127.0.0.1, a port the system picks or
 * `--watch-port`), and the same routes under `/watch` of the `--http`
 * listener ({@link WatchService.handler}). It knows the processes through
 * {@link WatchScope}s: one per client (what `process_watch` links to) and
 * one for everything (what `portal watch` links to).
 *
 * Routes, each through {@link WatchAccess} first: `/watch/` (the page; its
 * link's token becomes a cookie), `/watch/assets/NAME` (its files),
 * `/watch/socket` (its WebSocket, see page_socket.ts) and
 * `/watch/cast?id=ID` (a PTY process's asciicast, for download and replay).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WatchService } from "./service.ts";
 *
 * const service = WatchService.listen(0);
 * const scope = service.open({ watchedAll: () => [] });
 * const link = service.link(scope);
 * assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/watch\/\?scope=\w+&token=/);
 * const refused = await fetch(link.replace(/token=.*$/, ""));
 * assert.equal(refused.status, 401);
 * await refused.body?.cancel();
 * const page = await fetch(link);
 * assert.match(page.headers.get("content-security-policy")!, /script-src 'self'/);
 * assert.match(page.headers.get("set-cookie")!, /HttpOnly; SameSite=Strict/);
 * await page.body?.cancel();
 * await service.close();
 * ```
 * @module
 */
import { PortalError } from "../errors.ts";
import { generateToken, RequestGuard } from "../mcp/http_guard.ts";
import { asciicast, ASCIICAST_TYPE } from "../core/recording/asciicast.ts";
import { WATCH_PATH, WatchAccess } from "./access.ts";
import { ASSETS, PAGE } from "./assets.ts";
import { servePage } from "./page_socket.ts";
import { type ProcessSource, WatchScope } from "./scope.ts";

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
  readonly token: string;
  /** Every process of every client. */
  readonly everything: WatchScope;
  readonly #scopes = new Map<string, WatchScope>();
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  /** What {@link everything} shows: every process of the server (see {@link showAll}). */
  #all: ProcessSource = { watchedAll: () => [] };

  /** Listens on 127.0.0.1:`port` (0: a free port); throws when it cannot (`AddrInUse`). */
  static listen(port: number): WatchService {
    return new WatchService(port, generateToken());
  }

  private constructor(port: number, token: string) {
    this.token = token;
    this.everything = new WatchScope("", "all processes", () => [this.#all]);
    this.#scopes.set("", this.everything);
    let handle: (request: Request) => Promise<Response> = () => Promise.reject();
    this.#server = Deno.serve({
      hostname: "127.0.0.1",
      port,
      // Deno's default prints the address on stdout, which a server keeps for the protocol.
      onListen: () => {},
    }, (request) => handle(request));
    const bound = this.#server.addr.port;
    const guard = new RequestGuard({ listenHost: "127.0.0.1", allowHosts: [], token });
    handle = this.handler(guard, bound);
    this.url = `http://127.0.0.1:${bound}${WATCH_PATH}/`;
  }

  /** Where {@link everything} finds every process of the server (a manager that sees all). */
  showAll(source: ProcessSource): void {
    this.#all = source;
  }

  /** A scope for one client's processes (`source`); {@link end} it when the client goes. */
  open(source: ProcessSource): WatchScope {
    const key = generateToken().slice(0, 12).replace(/[^A-Za-z0-9]/g, "0");
    const scope = new WatchScope(key, "this agent's processes", () => [source]);
    this.#scopes.set(key, scope);
    return scope;
  }

  /** The client of `scope` has gone: its pages close, its link answers no more. */
  end(scope: WatchScope): void {
    this.#scopes.delete(scope.key);
    scope.close();
  }

  /** The link a person opens: the page of `scope`, showing process `id` first if given. */
  link(scope: WatchScope, id?: number | string): string {
    const query = new URLSearchParams();
    if (scope.key !== "") query.set("scope", scope.key);
    if (typeof id === "number") query.set("id", String(id));
    else if (id !== undefined) query.set("name", id);
    query.set("token", this.token);
    return `${this.url}?${query}`;
  }

  /** The routes under `/watch`, for a listener on `port` whose `Host`/`Origin` rules are `guard`'s. */
  handler(guard: RequestGuard, port: number): (request: Request) => Promise<Response> {
    const access = new WatchAccess(this.token, guard);
    return (request) => {
      const refusal = access.refuse(request, port);
      if (refusal) return Promise.resolve(answer(refusal.status, refusal.reason));
      try {
        return Promise.resolve(this.#route(request, access, port));
      } catch (error) {
        if (!(error instanceof PortalError)) throw error;
        return Promise.resolve(answer(404, error.message));
      }
    };
  }

  /** Stops listening; open pages are closed. */
  async close(): Promise<void> {
    for (const scope of this.#scopes.values()) scope.close();
    await this.#server.shutdown();
  }

  #route(request: Request, access: WatchAccess, port: number): Response {
    const url = new URL(request.url);
    if (request.method !== "GET") return answer(405, "Only GET.");
    const path = url.pathname;
    if (path === WATCH_PATH || path === `${WATCH_PATH}/`) {
      const headers = { ...HEADERS, "content-type": PAGE.type, "set-cookie": access.cookie(port) };
      return new Response(PAGE.body, { headers });
    }
    const asset = ASSETS.get(path.slice(`${WATCH_PATH}/assets/`.length));
    if (path.startsWith(`${WATCH_PATH}/assets/`) && asset) {
      return new Response(asset.body, { headers: { ...HEADERS, "content-type": asset.type } });
    }
    const scope = this.#scopes.get(url.searchParams.get("scope") ?? "");
    if (path === `${WATCH_PATH}/socket`) {
      if (scope === undefined) return answer(404, "This link's client has ended.");
      if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
        return answer(400, "This is the page's WebSocket.");
      }
      const { socket, response } = Deno.upgradeWebSocket(request);
      servePage(socket, scope);
      return response;
    }
    if (path === `${WATCH_PATH}/cast`) {
      if (scope === undefined) return answer(404, "This link's client has ended.");
      return this.#cast(scope, Number(url.searchParams.get("id")));
    }
    return answer(404, "Not found.");
  }

  /** A PTY process's asciicast, made line by line as it is sent. */
  #cast(scope: WatchScope, id: number): Response {
    const process = scope.find(id);
    if (!process.hasScreen) {
      return answer(400, `Process ${id} runs on pipes, which have no terminal to replay.`);
    }
    const recording = process.recording();
    const lines = asciicast(recording);
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
    const name = `portal-${id}-${recording.process.command.replace(/[^\w.-]/g, "_")}.cast`;
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
