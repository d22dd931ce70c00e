/**
 * Who may reach the processes through the watch page: no token that opens a
 * scope, no socket and no recording (401); a socket from another origin, or
 * a request naming another host, gets 403; the page sends a strict CSP. The
 * credential is never ambient: a browser that opened a link sends nothing
 * of Portal's to another server on this host, whatever its port; and one
 * client's link reaches that client's processes and the kept ones only,
 * whatever its URL is edited to say. Raw HTTP where the tests must see
 * exactly what a browser or another local user's program would get.
 */
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { Portal } from "../../dev/portal_client.ts";
import { waitFor } from "../../dev/wait.ts";
import { hostDir, sharedServer } from "../helpers/portal.ts";
import { posixTest } from "../helpers/platform.ts";
import { newPage, screenshot, sharedBrowser } from "../helpers/browser.ts";
import { linkToken, openWatchSocket } from "../helpers/watch.ts";

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

const pageTest = sharedBrowser();
/** One server for the tests that look at their own processes only (not the two clients' test). */
const server = sharedServer();

/** What a browser's WebSocket handshake sends. */
const UPGRADE = {
  upgrade: "websocket",
  connection: "Upgrade",
  "sec-websocket-version": "13",
  "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
};

/** A WebSocket handshake offering `token` as the page does. */
function offering(token: string): Record<string, string> {
  return { ...UPGRADE, "sec-websocket-protocol": `portal.watch, portal.token.${token}` };
}

posixTest(
  "watch access: 401 without the token, 403 for another origin or host, a strict CSP",
  async () => {
    const portal = await server();
    const id = await portal.spawn("python3", ["-q"], { pty: true, wait: "ready" });
    const link = new URL((await portal.call("process_watch", { id })).url);
    const port = Number(link.port);
    const token = linkToken(link.href);
    assert(token.length >= 22, "at least 128 bits"); // base64url: 6 bits a character
    assertEquals(link.search, `?id=${id}`, "the token is in the fragment, which no server gets");
    const host = { host: `127.0.0.1:${port}` };

    // Nothing of the processes without the token: neither the socket nor a recording.
    assertEquals((await rawGet(port, `/watch/cast?id=${id}`, host)).status, 401);
    assertEquals((await rawGet(port, "/watch/socket", { ...host, ...UPGRADE })).status, 401);
    for (const wrong of [`${token}x`, token.slice(1), token.toUpperCase(), "", "Bearer"]) {
      const bearer = { ...host, authorization: `Bearer ${wrong}` };
      assertEquals((await rawGet(port, `/watch/cast?id=${id}`, bearer)).status, 401, wrong);
      const socket = { ...host, ...offering(wrong) };
      assertEquals((await rawGet(port, "/watch/socket", socket)).status, 401, wrong);
    }
    // Neither in the query (where the token went before) nor in a cookie is it a credential.
    const queried = `/watch/cast?id=${id}&token=${token}`;
    assertEquals((await rawGet(port, queried, host)).status, 401);
    const cookie = { ...host, cookie: `portal_watch_${port}=${token}` };
    assertEquals((await rawGet(port, "/watch/socket", { ...cookie, ...UPGRADE })).status, 401);

    // The page and its files hold no secret: they need no token, and set no cookie.
    for (const path of ["/watch/", "/watch/assets/watch.js", "/watch/assets/xterm.js"]) {
      const file = await rawGet(port, path, host);
      assertEquals(file.status, 200, path);
      assertEquals(file.headers.get("set-cookie"), null, path);
    }
    const page = await rawGet(port, "/watch/", host);
    const csp = page.headers.get("content-security-policy") ?? "";
    assertMatch(csp, /default-src 'none'/);
    assertMatch(csp, /script-src 'self';/);
    assertMatch(csp, /frame-ancestors 'none'/);

    // The token, as the page shows it: the socket answers with its protocol, never the token.
    const bearer = { ...host, authorization: `Bearer ${token}` };
    const cast = await rawGet(port, `/watch/cast?id=${id}`, bearer);
    assertEquals([cast.status, cast.headers.get("content-type")], [200, "application/x-asciicast"]);
    const opened = await rawGet(port, "/watch/socket", { ...host, ...offering(token) });
    assertEquals(opened.status, 101);
    assertEquals(opened.headers.get("sec-websocket-protocol"), "portal.watch");
    // The page's own origin may open the socket; no other, not even another port of this host.
    const own = { ...host, ...offering(token), origin: `http://127.0.0.1:${port}` };
    assertEquals((await rawGet(port, "/watch/socket", own)).status, 101);
    for (const origin of [`http://127.0.0.1:${port + 1}`, "http://evil.example", "null"]) {
      assertEquals((await rawGet(port, "/watch/socket", { ...own, origin })).status, 403, origin);
      const cast = { ...bearer, origin };
      assertEquals((await rawGet(port, `/watch/cast?id=${id}`, cast)).status, 403, origin);
    }
    // DNS rebinding: a name that is not this server's, for the page as for the rest.
    for (
      const path of ["/watch/", "/watch/assets/watch.js", "/watch/socket", `/watch/cast?id=${id}`]
    ) {
      const rebound = {
        ...offering(token),
        authorization: `Bearer ${token}`,
        host: `evil.example:${port}`,
      };
      assertEquals((await rawGet(port, path, rebound)).status, 403, path);
    }
  },
  { shares: true },
);

pageTest(
  "watch access: the browser's address bar loses the token; a reload still works",
  async (browser) => {
    const portal = await server();
    const id = await portal.spawn("python3", ["-q"], { pty: true, wait: "ready" });
    const { url } = await portal.call("process_watch", { id });
    const page = await newPage(browser);
    const response = await page.goto(url);
    assertMatch(response?.headers()["content-security-policy"] ?? "", /script-src 'self'/);
    await page.waitForSelector(".xterm-rows");
    assert(!page.url().includes(linkToken(url)), page.url());
    assertEquals(new URL(page.url()).hash, "");
    assertEquals(new URL(page.url()).searchParams.get("id"), String(id));
    const live = () => page.$eval("#connection", (e) => e.textContent);
    await waitFor("the page's socket to open", live, { until: (text) => text === "live" });
    const reloaded = await page.reload();
    assertEquals(reloaded?.status(), 200);
    await waitFor("the reloaded page's socket to open", live, { until: (text) => text === "live" });
    // A page opened without its link's token says how to open it.
    const bare = await newPage(browser);
    await bare.goto(new URL("/watch/", url).href);
    await waitFor(
      "the page to say it has no token",
      () => bare.$eval("#choose", (e) => e.textContent),
      {
        until: (text) => text?.includes("opened without its token") === true,
      },
    );
    await screenshot(bare, "no-token");
  },
);

/** What the other server on this host received, and what its page in the browser found. */
interface Received {
  requests: { url: string; headers: [string, string][] }[];
  report?: { socket: string; fetch: string; cookie: string; storage: number };
}

/**
 * Another local user's web server on 127.0.0.1 (another port): it records
 * every request, sends each to a path under `/watch/`, and its page tries the watch page's socket and recordings
 * from the browser, and reports what it found.
 */
function otherServer(watchPort: number, id: number) {
  const received: Received = { requests: [] };
  const script = `
    const report = {};
    const done = () => fetch("/report", { method: "POST", body: JSON.stringify(report) });
    report.cookie = document.cookie;
    report.storage = sessionStorage.length + localStorage.length;
    fetch("http://127.0.0.1:${watchPort}/watch/cast?id=${id}", { credentials: "include" })
      .then((r) => r.status, (e) => "refused: " + e.message)
      .then((result) => {
        report.fetch = String(result);
        const socket = new WebSocket("ws://127.0.0.1:${watchPort}/watch/socket");
        socket.onmessage = ({ data }) => { report.socket = "message: " + data; socket.close(); };
        socket.onclose = ({ code }) => { report.socket ??= "closed " + code; done(); };
      });`;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (r) => {
    received.requests.push({ url: r.url, headers: [...r.headers] });
    const path = new URL(r.url).pathname;
    if (path === "/report") received.report = await r.json();
    // Under the paths Portal's page uses, where a cookie of its would be sent.
    else if (!path.startsWith("/watch/")) {
      return new Response(null, { status: 302, headers: { location: `/watch${path}` } });
    }
    return new Response(`<!doctype html><title>elsewhere</title><script>${script}</script>`, {
      headers: { "content-type": "text/html" },
    });
  });
  return { received, origin: `http://127.0.0.1:${server.addr.port}`, server };
}

pageTest(
  "watch access: a browser that opened a link sends nothing of Portal's to another server",
  async (browser) => {
    const portal = await server();
    const shell = await portal.startBash();
    const { url } = await portal.call("process_watch", { id: shell.id });
    const watchPort = Number(new URL(url).port);
    // Every token this Portal has: this client's link's, and `portal watch`'s (every process).
    const everything = linkToken(await Deno.readTextFile(`${portal.dbPath}.watch`));
    const tokens = [linkToken(url), everything];

    const page = await newPage(browser);
    await page.goto(url);
    await page.waitForSelector(".xterm-rows");
    await waitFor(
      "the page's socket to open",
      () => page.$eval("#connection", (e) => e.textContent),
      {
        until: (text) => text === "live",
      },
    );
    const other = otherServer(watchPort, shell.id);
    try {
      // The person follows a link elsewhere on this host, in the same tab and in another.
      await page.goto(`${other.origin}/elsewhere`);
      const second = await newPage(browser);
      await second.goto(`${other.origin}/another`);
      await waitFor("the other page's report", () => other.received.report?.socket);
      const report = other.received.report!;
      // It received nothing of Portal's: no cookie at all, no token in any header.
      const headers = other.received.requests.flatMap((r) => r.headers);
      assert(headers.length > 0);
      assertEquals(headers.filter(([name]) => name === "cookie"), []);
      for (const [name, value] of headers) {
        for (const token of tokens) assert(!value.includes(token), `${name}: ${value}`);
      }
      assertEquals(report.cookie, "");
      assertEquals(report.storage, 0);
      // Its page could not reach the processes from the browser: no list, no recording.
      assertMatch(report.fetch, /^(refused|401|403)/);
      assertEquals(report.socket, "closed 1006");
      // And whatever it received, replayed from its server, opens nothing.
      for (const { headers } of other.received.requests) {
        const replayed = Object.fromEntries(
          headers.filter(([n]) => !["host", "origin", "content-length"].includes(n)),
        );
        const host = { ...replayed, host: `127.0.0.1:${watchPort}` };
        assertEquals(
          (await rawGet(watchPort, "/watch/socket", { ...host, ...UPGRADE })).status,
          401,
        );
        const cast = await rawGet(watchPort, `/watch/cast?id=${shell.id}`, host);
        assertEquals(cast.status, 401);
        const own = { ...host, ...UPGRADE, origin: other.origin };
        assertEquals((await rawGet(watchPort, "/watch/socket", own)).status, 403);
      }
      // The browser holds no cookie of any site.
      const cdp = await page.createCDPSession();
      const { cookies } = await cdp.send("Storage.getCookies");
      assertEquals(cookies, []);
      // Nothing reached the shell, and the person's keyboard was never taken.
      const inspected = await portal.call("process_inspect", { id: shell.id });
      assertEquals([inspected.controlled_by, inspected.stdin_count], ["agent", 0]);
    } finally {
      await other.server.shutdown();
    }
  },
);

pageTest(
  "watch access: one client's link reaches its processes and the kept ones, whatever its URL",
  async (browser) => {
    await using dir = await hostDir();
    await using a = await Portal.start({ dir: dir.path });
    await using b = await Portal.start({ dir: dir.path });
    const mine = await a.spawn("python3", ["-q"], { pty: true, wait: "ready" });
    const theirs = (await b.startBash()).id;
    const kept = await b.spawn("sleep", ["60"], { keep: true, name: "shared" });
    const link = (await a.call("process_watch", {})).url;
    const origin = new URL(link).origin;
    const token = linkToken(link);

    // Whatever the socket's URL says (the scope it once named, another id), A's token shows A's.
    for (const query of ["", "?scope=", `?scope=x&id=${theirs}`, `?name=shared&token=x`]) {
      await using socket = openWatchSocket(origin, token, query);
      const list = await socket.next("processes");
      const ids = (list.processes as { id: number }[]).map((p) => p.id);
      assertEquals(ids, [mine, kept], query);
      assertEquals(list.label, "this agent's processes");
      socket.send({ type: "watch", id: theirs });
      const error = await socket.next("error");
      assertMatch(String(error.message), new RegExp(`^No process ${theirs} here`));
      // With nothing watched, nothing is taken over or typed into.
      const before = socket.messages.length;
      socket.send({ type: "take_over" });
      socket.send({ type: "input", data: "id\n" });
      assertEquals((await socket.next("error", before)).message, "Choose a process first.");
    }
    const cast = await fetch(`${origin}/watch/cast?id=${theirs}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assertEquals(cast.status, 404);
    assertMatch(await cast.text(), /belongs to another client/);
    const inspected = await b.call("process_inspect", { id: theirs });
    assertEquals([inspected.controlled_by, inspected.stdin_count], ["agent", 0]);

    // In a browser, A's link edited to open B's process: A's list, and a header that says so.
    const page = await newPage(browser);
    const edited = new URL(link);
    edited.search = `?id=${theirs}&scope=`;
    await page.goto(edited.href);
    await page.waitForSelector(`.process[data-id="${kept}"]`, { timeout: 5000 });
    const listed = await page.$$eval(
      ".process",
      (items) => items.map((i) => i.getAttribute("data-id")),
    );
    assertEquals(listed, [String(mine), String(kept)]);
    await waitFor("the header to say", () => page.$eval("#scope", (e) => e.textContent), {
      until: (text) => text === `no process #${theirs} here · this agent's processes`,
    });
    await screenshot(page, "another-clients-id");

    // `portal watch`'s link (the person, at their shell) sees every client's processes.
    const everything = linkToken(await Deno.readTextFile(`${b.dbPath}.watch`));
    await using all = openWatchSocket(origin, everything);
    const every = await all.next("processes");
    assertEquals((every.processes as { id: number }[]).map((p) => p.id), [mine, theirs, kept]);
    assertEquals(every.label, "every client's processes");
  },
);
