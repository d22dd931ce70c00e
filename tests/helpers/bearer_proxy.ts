/**
 * A reverse proxy for a client that cannot send Portal's bearer token (the
 * MCP conformance suite): every request to it goes to `target` with the
 * token added. An Origin naming the proxy is rewritten to the target's, as
 * the browser would have sent had it talked to the target itself; any
 * other Origin passes as it is, for Portal to refuse.
 *
 * @module
 */

/** A listening proxy: its endpoint's URL, and how to stop it. */
export interface BearerProxy extends AsyncDisposable {
  url: URL;
}

/** Proxies 127.0.0.1:(a free port) to `target` (an MCP endpoint's URL) with `token`. */
export function bearerProxy(target: URL, token: string): BearerProxy {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    headers.set("authorization", `Bearer ${token}`);
    headers.delete("host");
    const origin = headers.get("origin");
    if (origin !== null && isProxy(origin)) headers.set("origin", target.origin);
    return fetch(new URL(url.pathname + url.search, target), {
      method: request.method,
      headers,
      body: request.body,
      redirect: "manual",
      signal: request.signal,
    });
  });
  const { port } = server.addr;
  const isProxy = (origin: string) => {
    try {
      const { hostname, port: given } = new URL(origin);
      return ["127.0.0.1", "localhost"].includes(hostname) && Number(given) === port;
    } catch {
      return false;
    }
  };
  return {
    url: new URL(target.pathname, `http://127.0.0.1:${port}`),
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}
