/**
 * The watch page from a shell and over `--http`: `portal watch [ID|NAME]`
 * prints the running server's link; `--watch-port` chooses its port; under
 * `--http` the same page answers at `/watch` of the HTTP listener, with its
 * own tokens (not the MCP bearer token) and that listener's Host checks.
 */
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { callTool, Portal } from "../../dev/portal_client.ts";
import { freePort } from "../../dev/free_port.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { runCli } from "../helpers/cli.ts";
import { HttpPortal } from "../helpers/http_portal.ts";
import { linkToken, openWatchSocket } from "../helpers/watch.ts";

Deno.test("portal watch: the running server's link, opening on an id or a name", async () => {
  await using dir = await tempDir("portal-watch-cli-");
  const port = freePort();
  const env = { PORTAL_DB_PATH: "" };
  {
    await using portal = await Portal.start({ args: ["--watch-port", String(port)] });
    env.PORTAL_DB_PATH = portal.dbPath;
    await portal.spawn("sleep", ["30"], { name: "calc" });
    const run = await runCli(dir.path, ["watch"], env);
    assertEquals(run.code, 0, run.stderr);
    const link = new URL(run.stdout.trim());
    assertEquals(link.origin, `http://127.0.0.1:${port}`);
    assertEquals(link.pathname, "/watch/");
    const page = await fetch(link);
    assertEquals(page.status, 200);
    assertMatch(await page.text(), /<title>Portal · watch<\/title>/);
    const byId = new URL((await runCli(dir.path, ["watch", "1"], env)).stdout.trim());
    assertEquals(byId.searchParams.get("id"), "1");
    const byName = new URL((await runCli(dir.path, ["watch", "calc"], env)).stdout.trim());
    assertEquals(byName.searchParams.get("id"), "1", "the name, resolved as attach does");
    assertEquals(linkToken(byName.href), linkToken(link.href));
    // The file it is read from is the owner's alone.
    assertEquals((await Deno.stat(`${portal.dbPath}.watch`)).mode! & 0o777, 0o600);
  }
  // The server has gone: so has its page.
  const gone = await runCli(dir.path, ["watch"], env);
  assertEquals(gone.code, 1);
  assertMatch(gone.stderr, /^portal: no running Portal server holds /);
  const usage = await runCli(dir.path, ["watch", "1", "2"], env);
  assertEquals(usage.code, 2);
  const misplaced = await runCli(dir.path, ["watch", "--http", "8080"], env);
  assertMatch(misplaced.stderr, /--http does not apply to watch/);
});

Deno.test("--http: the page also at /watch on the HTTP listener, with its own token", async () => {
  await using server = await HttpPortal.start();
  const client = await server.connect();
  const { id } = await callTool(client, "process_start", { command: "sleep", args: ["30"] });
  const link = new URL((await callTool(client, "process_watch", { id })).url);
  const token = linkToken(link.href);
  assert(token !== server.token, "the page's token is not the MCP bearer token");
  // The same page on the HTTP listener's port (it holds no secret), the same token for the rest.
  const origin = new URL(server.url).origin;
  for (const path of [`${link.pathname}${link.search}`, "/watch/assets/watch.js"]) {
    const file = await fetch(new URL(path, origin));
    assertEquals(file.status, 200, path);
    await file.body?.cancel();
  }
  {
    await using socket = openWatchSocket(origin, token);
    const list = await socket.next("processes");
    assertEquals((list.processes as { id: number }[]).map((p) => p.id), [id]);
  }
  const cast = `/watch/cast?id=${id}`;
  const without = await fetch(new URL(cast, origin));
  assertEquals(without.status, 401);
  await without.body?.cancel();
  // The MCP bearer token does not open the page's processes, nor the page's token /mcp.
  const bearer = await fetch(new URL(cast, origin), {
    headers: { authorization: `Bearer ${server.token}` },
  });
  assertEquals(bearer.status, 401);
  await bearer.body?.cancel();
  const mcp = await fetch(server.url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
  });
  assertEquals(mcp.status, 401);
  await mcp.body?.cancel();
});
