import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { PERMISSIONS } from "../../dev/compile.ts";
import { callTool, failTool, type Json } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { listTree, runCli } from "../helpers/cli.ts";
import { HttpPortal, type RawSession } from "../helpers/http_portal.ts";
import { posixTest } from "../helpers/platform.ts";
import { pidAlive } from "../helpers/processes.ts";

/** Reads process `id` until its output holds `text`. */
function readUntil(client: Client, id: number, text: string): Promise<string> {
  let output = "";
  return waitFor(`"${text}" from process ${id}`, async () => {
    const page = await callTool(client, "process_read_new", { id });
    output += page.records.map((r: Json) => r.content).join("");
    return output;
  }, { until: (out) => out.includes(text) });
}

/** What connecting with these options is refused with: the HTTP status. */
async function refusal(
  portal: HttpPortal,
  options: Parameters<HttpPortal["connect"]>[0],
): Promise<number> {
  try {
    await portal.connect(options);
  } catch (error) {
    return (error as { code: number }).code;
  }
  throw new Error(`connecting with ${JSON.stringify(options)} succeeded`);
}

/** A raw HTTP/1.1 request, for headers fetch would not send as given (Host). */
async function rawRequest(url: URL, headers: string[]): Promise<string> {
  const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  const body = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
  const request = [
    `POST ${url.pathname} HTTP/1.1`,
    ...headers,
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    `Content-Length: ${body.length}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
  await conn.write(new TextEncoder().encode(request));
  return await new Response(conn.readable).text();
}

posixTest("Streamable HTTP: a session runs programs; strangers are refused", async (t) => {
  await using portal = await HttpPortal.start();
  assertMatch(portal.url.href, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

  await t.step("a session with the token starts echo and reads it back", async () => {
    const client = await portal.connect();
    assertEquals(client.getServerVersion()?.name, "portal");
    const { id } = await callTool(client, "process_start", { command: "echo", args: ["hello"] });
    assertEquals(await readUntil(client, id, "hello\n"), "hello\n");
    const { processes } = await callTool(client, "process_list");
    assertEquals(processes.map((p: Json) => p.id), [id]);
  });

  await t.step("no token, or a wrong one: 401", async () => {
    assertEquals(await refusal(portal, { token: null }), 401);
    assertEquals(await refusal(portal, { token: `${portal.token}x` }), 401);
  });

  await t.step(
    "an Origin not the server's own (scheme, host and port): 403; its own passes",
    async () => {
      const { port } = portal.url;
      for (
        const origin of [
          "http://evil.example",
          "null",
          "http://localhost:6274", // another port of this machine: another site
          `https://127.0.0.1:${port}`,
          `http://localhost:${port}`, // the page named the server 127.0.0.1
        ]
      ) {
        assertEquals(await refusal(portal, { headers: { origin } }), 403, origin);
      }
      await portal.connect({ headers: { origin: `http://127.0.0.1:${port}` } });
    },
  );

  await t.step(
    "a Host that is not this server's (DNS rebinding): 403, even with the token",
    async () => {
      const auth = `Authorization: Bearer ${portal.token}`;
      const rebound = await rawRequest(portal.url, [`Host: evil.example:${portal.url.port}`, auth]);
      assertMatch(rebound, /^HTTP\/1\.1 403 /);
      assertStringIncludes(rebound, "evil.example");
      const missing = await rawRequest(portal.url, [auth]);
      assertMatch(missing, /^HTTP\/1\.1 403 /);
      // Only its names, written the usual way: no other spelling that resolves to them.
      const { port } = portal.url;
      for (
        const host of [
          `127.1:${port}`,
          `0x7f000001:${port}`,
          `2130706433:${port}`,
          `localhost.:${port}`,
          `[0:0:0:0:0:0:0:1]:${port}`,
          `127.0.0.1:0${port}`,
          `%31%32%37.0.0.1:${port}`,
          `127.0.0.1@evil.example:${port}`,
        ]
      ) {
        assertMatch(
          await rawRequest(portal.url, [`Host: ${host}`, auth]),
          /^HTTP\/1\.1 403 /,
          host,
        );
      }
      // The same raw request with this server's name gets past the guard.
      const own = await rawRequest(portal.url, [`Host: ${portal.url.host}`, auth]);
      assertMatch(own, /^HTTP\/1\.1 400 /);
    },
  );

  await t.step("refusals are logged on stderr; stdout stays empty", async () => {
    await waitFor("the refusals on stderr", () => portal.stderr, {
      until: (text) => text.includes("portal [warning] http: refused POST: Host "),
    });
    assertStringIncludes(portal.stderr, "portal [warning] http: refused POST: Origin ");
    assertStringIncludes(
      portal.stderr,
      "portal [warning] http: refused POST: Send the server's token",
    );
    assertEquals(portal.stdout, "");
  });
});

posixTest(
  "Streamable HTTP: sessions see only their own processes, which die with them",
  async () => {
    await using portal = await HttpPortal.start();
    const alice = await portal.connect();
    const bob = await portal.connect();
    const { id, os_pid } = await callTool(alice, "process_start", {
      command: "sleep",
      args: ["60"],
    });

    assertEquals((await callTool(bob, "process_list")).processes, []);
    for (const tool of ["process_inspect", "process_read_new", "process_kill", "process_cleanup"]) {
      assertMatch(
        await failTool(bob, tool, { id }),
        new RegExp(`^No process with id ${id} you can use: it belongs to another client's session`),
      );
    }
    const { id: own } = await callTool(bob, "process_start", { command: "sleep", args: ["60"] });
    assert(own !== id, "ids are never shared between sessions");
    assertEquals((await callTool(alice, "process_list")).processes.map((p: Json) => p.id), [id]);
    assertEquals((await callTool(bob, "process_list")).processes.map((p: Json) => p.id), [own]);
    // A kept process is every session's, and outlives the session that started it.
    const kept = await callTool(alice, "process_start", {
      command: "cat",
      keep: true,
      name: "shared-cat",
    });
    assertEquals([kept.name, kept.keep], ["shared-cat", true]);
    assertEquals((await callTool(bob, "process_list")).processes.map((p: Json) => p.id), [
      own,
      kept.id,
    ]);

    // Alice's session ends (her client deletes it): her program dies, Bob's runs on.
    await (alice.transport as StreamableHTTPClientTransport).terminateSession();
    await waitFor("alice's program to die with her session", () => !pidAlive(os_pid));
    assertEquals((await callTool(bob, "process_inspect", { id: own })).status, "running");
    assertMatch(
      await failTool(bob, "process_inspect", { id }),
      /belonged to a client that has left/,
    );
    const step = await callTool(bob, "process_write", { id: kept.id, content: "still here\n" });
    assertEquals(step.output, "still here\n");
  },
);

posixTest(
  "--share-processes: every session sees every process; --allow-host: more names",
  async () => {
    await using portal = await HttpPortal.start({
      args: ["--share-processes", "--allow-host", "Build-Box.lan"],
    });
    const alice = await portal.connect();
    const bob = await portal.connect();
    const { id } = await callTool(alice, "process_start", { command: "echo", args: ["shared"] });
    assertEquals(await readUntil(bob, id, "shared\n"), "shared\n");

    const auth = `Authorization: Bearer ${portal.token}`;
    const named = await rawRequest(portal.url, [`Host: build-box.lan:${portal.url.port}`, auth]);
    assertMatch(named, /^HTTP\/1\.1 400 /); // past the guard: MCP itself answers
    const other = await rawRequest(portal.url, [`Host: other-box.lan:${portal.url.port}`, auth]);
    assertMatch(other, /^HTTP\/1\.1 403 /);
  },
);

posixTest("the release binaries' permissions are enough: HTTP, pipes, a terminal", async () => {
  await using portal = await HttpPortal.start({ permissions: PERMISSIONS });
  const client = await portal.connect();
  const pipes = await callTool(client, "process_start", { command: "echo", args: ["piped"] });
  assertEquals(await readUntil(client, pipes.id, "piped\n"), "piped\n");
  const pty = await callTool(client, "process_start", { command: "tty", pty: true });
  assertMatch(await readUntil(client, pty.id, "\n"), /^\/dev\/\S+\n$/);
  await callTool(client, "program_record", { program: "tty", needs_pty: true });
});

posixTest("a port already taken: a clear error, exit 1, and no database left behind", async () => {
  await using portal = await HttpPortal.start();
  await using dir = await tempDir();
  const run = await runCli(dir.path, ["--http", `127.0.0.1:${portal.url.port}`]);
  assertEquals([run.code, run.stdout], [1, ""]);
  assertMatch(
    run.stderr,
    new RegExp(`^portal: cannot listen on 127\\.0\\.0\\.1:${portal.url.port}: `, "m"),
  );
  assertEquals(await listTree(dir.path), ["home"]);
});

/** Starts `sleep 60` in `session`; returns its id and pid. */
async function sleeper(session: RawSession): Promise<{ id: number; pid: number }> {
  const { message } = await session.call("tools/call", {
    name: "process_start",
    arguments: { command: "sleep", args: ["60"] },
  });
  const { id, os_pid } = message.result.structuredContent;
  return { id, pid: os_pid };
}

/** A wait of `ms` on process `id` of `session`, which holds a request open that long. */
function waitOn(session: RawSession, id: number, ms: number) {
  return session.call("tools/call", {
    name: "process_read_new",
    arguments: { id, wait: "exit", wait_ms: ms },
  });
}

posixTest(
  "HTTP sessions: one idle past PORTAL_SESSION_IDLE_S ends, with its processes; one that is busy or connected does not",
  async () => {
    await using portal = await HttpPortal.start({ env: { PORTAL_SESSION_IDLE_S: "1" } });
    // Abandoned: a fetch client, and an SDK client that goes without a DELETE.
    const raw = await portal.rawSession();
    const rawProcess = await sleeper(raw);
    const gone = await portal.connect();
    const { os_pid } = await callTool(gone, "process_start", { command: "sleep", args: ["60"] });
    await (gone.transport as StreamableHTTPClientTransport).close();
    // Busy: a request open three times the idle time; connected: an SDK client (its stream).
    const busy = await portal.rawSession();
    const busyProcess = await sleeper(busy);
    const connected = await portal.connect();
    const waited = await waitOn(busy, busyProcess.id, 3000);
    assertEquals(waited.message.result.structuredContent.reason, "timeout");

    await waitFor("the idle sessions' programs to end", () => pidAlive(rawProcess.pid), {
      until: (alive) => !alive && !pidAlive(os_pid),
    });
    assertMatch(portal.stderr, new RegExp(`session ${raw.id} ends: idle for 1 s`));
    const late = await raw.call("tools/call", { name: "process_list", arguments: {} });
    assertEquals(late.status, 404);
    assertMatch(late.message.error.message, /^Session not found \(its client ended it, or it/);
    // The busy session is still there (its program too), and so is the connected one.
    assertEquals(pidAlive(busyProcess.pid), true);
    const list = await busy.call("tools/call", { name: "process_list", arguments: {} });
    assertEquals(list.message.result.structuredContent.processes.length, 1);
    assertEquals((await callTool(connected, "process_list")).processes, []);
  },
);

posixTest(
  "HTTP sessions: past PORTAL_MAX_SESSIONS the one idle the longest ends; when all are busy, 503",
  async () => {
    await using portal = await HttpPortal.start({
      env: { PORTAL_MAX_SESSIONS: "2", PORTAL_SESSION_IDLE_S: "0" },
    });
    const first = await portal.rawSession();
    const firstProcess = await sleeper(first);
    const second = await portal.rawSession();
    const secondProcess = await sleeper(second);
    // A third: the first, idle the longest, ends (with its program) to make room.
    const third = await portal.rawSession();
    await waitFor("the first session's program to end", () => !pidAlive(firstProcess.pid));
    assertEquals((await first.call("ping")).status, 404);
    assertEquals((await second.call("ping")).status, 200);
    assertMatch(
      portal.stderr,
      /ends: idle the longest, for a new one \(PORTAL_MAX_SESSIONS is 2\)/,
    );
    const thirdProcess = await sleeper(third);
    // Both busy (each with its stream open, as an SDK client's): a new one is refused, and says why.
    const streams = [await second.stream(), await third.stream()];
    const refused = await portal.rawSession().then(() => null, (error) => error);
    assertEquals(refused?.status, 503);
    assertMatch(refused.message, /Portal has 2 sessions \(PORTAL_MAX_SESSIONS\), each with a/);
    // A stream closed, its session is idle again: the next new one takes its place.
    await streams[0].close();
    await waitFor("room for a session", () => portal.rawSession().then(() => true, () => false), {
      until: (made) => made,
    });
    await waitFor("the second session's program to end", () => !pidAlive(secondProcess.pid));
    assertEquals(pidAlive(thirdProcess.pid), true);
    await streams[1].close();
  },
);
