/**
 * Who may open the watch page: no token, no page, no file, no socket (401);
 * a socket from another origin, or a request naming another host, gets 403;
 * the page sends a strict CSP. Raw HTTP, so the tests see exactly what a
 * browser or an attacker's page would get.
 */
import { assert, assertEquals, assertMatch } from "./helpers/assert.ts";
import { Portal } from "../dev/portal_client.ts";
import { browserTest, newPage, openBrowser } from "./helpers/browser.ts";

/** The status line and headers of a raw HTTP/1.1 GET to 127.0.0.1:`port`. */
async function rawGet(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Headers }> {
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const lines = [
      `GET ${path} HTTP/1.1`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    await connection.write(new TextEncoder().encode(lines.join("\r\n") + "\r\n\r\n"));
    let text = "";
    const buffer = new Uint8Array(4096);
    while (!text.includes("\r\n\r\n")) {
      const n = await connection.read(buffer);
      if (n === null) break;
      text += new TextDecoder().decode(buffer.subarray(0, n));
    }
    const [status, ...rest] = text.split("\r\n\r\n")[0].split("\r\n");
    const parsed = new Headers(rest.map((line) => {
      const at = line.indexOf(":");
      return [line.slice(0, at), line.slice(at + 1).trim()] as [string, string];
    }));
    return { status: Number(status.split(" ")[1]), headers: parsed };
  } finally {
    connection.close();
  }
}

/** What a browser's WebSocket handshake sends. */
const UPGRADE = {
  upgrade: "websocket",
  connection: "Upgrade",
  "sec-websocket-version": "13",
  "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
};

Deno.test("watch access: 401 without the token, 403 for another origin or host, a strict CSP", async () => {
  await using portal = await Portal.start();
  const id = await portal.spawn("python3", ["-q"], { pty: true, wait: "ready" });
  const link = new URL((await portal.call("process_watch", { id })).url);
  const port = Number(link.port);
  const token = link.searchParams.get("token")!;
  assert(token.length >= 22, "at least 128 bits"); // base64url: 6 bits a character
  const host = { host: `127.0.0.1:${port}` };

  // Nothing without the token: the page, its files, its socket, a recording.
  for (
    const path of [
      "/watch/",
      "/watch/assets/watch.js",
      "/watch/assets/xterm.js",
      "/watch/cast?id=1",
    ]
  ) {
    assertEquals((await rawGet(port, path, host)).status, 401, path);
  }
  assertEquals((await rawGet(port, "/watch/socket", { ...host, ...UPGRADE })).status, 401);
  assertEquals((await rawGet(port, `/watch/?token=${token}x`, host)).status, 401);
  // The token in the query opens the page only; its files need the cookie.
  assertEquals((await rawGet(port, `/watch/assets/watch.js?token=${token}`, host)).status, 401);

  const page = await rawGet(port, `/watch/?token=${token}`, host);
  assertEquals(page.status, 200);
  const csp = page.headers.get("content-security-policy") ?? "";
  assertMatch(csp, /default-src 'none'/);
  assertMatch(csp, /script-src 'self';/);
  assertMatch(csp, /frame-ancestors 'none'/);
  const cookie = page.headers.get("set-cookie") ?? "";
  assertMatch(cookie, /HttpOnly/);
  assertMatch(cookie, /SameSite=Strict/);
  const withCookie = { ...host, cookie: cookie.split(";")[0] };
  assertEquals((await rawGet(port, "/watch/assets/xterm.js", withCookie)).status, 200);
  assertEquals((await rawGet(port, "/watch/socket", { ...withCookie, ...UPGRADE })).status, 101);
  // The page's own origin may open the socket; no other, not even another port of this host.
  const own = { ...withCookie, ...UPGRADE, origin: `http://127.0.0.1:${port}` };
  assertEquals((await rawGet(port, "/watch/socket", own)).status, 101);
  for (const origin of [`http://127.0.0.1:${port + 1}`, "http://evil.example", "null"]) {
    assertEquals((await rawGet(port, "/watch/socket", { ...own, origin })).status, 403, origin);
  }
  // DNS rebinding: a name that is not this server's.
  const rebound = { ...withCookie, host: `evil.example:${port}` };
  assertEquals((await rawGet(port, `/watch/?token=${token}`, rebound)).status, 403);
});

Deno.test({
  name: "watch access: the browser's address bar loses the token; a reload still works",
  ...browserTest,
  fn: async () => {
    await using portal = await Portal.start();
    await using browser = await openBrowser();
    const id = await portal.spawn("python3", ["-q"], { pty: true, wait: "ready" });
    const { url } = await portal.call("process_watch", { id });
    const page = await newPage(browser);
    const response = await page.goto(url);
    assertMatch(response?.headers()["content-security-policy"] ?? "", /script-src 'self'/);
    await page.waitForSelector(".xterm-rows");
    assert(!page.url().includes("token"), page.url());
    assertEquals(new URL(page.url()).searchParams.get("id"), String(id));
    const reloaded = await page.reload();
    assertEquals(reloaded?.status(), 200);
  },
});
