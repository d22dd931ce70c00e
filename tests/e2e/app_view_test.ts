/**
 * The terminal view (an MCP App) in a real browser, in a host built on
 * ext-apps' AppBridge (tests/helpers/app_host.ts), connected to Portal by the
 * SDK v2 client: a process drawn live in a sandboxed iframe on another
 * origin, fed through the host by the view's tools; Take over and Give back
 * with the watch page's semantics (the model told, the agent's writes
 * refused, person_input after, a password redacted); full-screen programs;
 * the recording; the token bound to its client; and a client without the
 * extension seeing what it always did. Each screenshot is printed.
 *
 * @module
 */
import type { CallToolResult } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { modernClient, ModernPortal } from "../../dev/modern_client.ts";
import { MAIN, serverEnv } from "../../dev/portal_client.ts";
import { waitFor } from "../../dev/wait.ts";
import { LEASE_MS } from "../../src/mcp/app/views.ts";
import { LISTING_MAX_CHARS } from "../../src/mcp/tools/listing.ts";
import { type AppHost, badgeUntil, renderView, UI_CAPABILITIES } from "../helpers/app_host.ts";
import { screenshot, sharedBrowser, terminalText, terminalUntil } from "../helpers/browser.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";

const pageTest = sharedBrowser();

/** Portal and an SDK v2 client that renders apps, of 2025-11-25 (as hosts are) or 2026-07-28. */
function uiPortal(modern = false): Promise<ModernPortal> {
  return ModernPortal.start({ capabilities: UI_CAPABILITIES, legacy: !modern });
}

/** process_watch as a host calls it: the whole result, `_meta` included. */
async function watchCall(portal: ModernPortal, id: number) {
  const result = await portal.client.callTool({ name: "process_watch", arguments: { id } });
  return { args: { id }, result: result as CallToolResult & Record<string, unknown> };
}

/** Starts `command` on a PTY and renders its view; returns once `ready` shows in it. */
async function viewOf(
  browser: Parameters<Parameters<typeof pageTest>[1]>[0],
  portal: ModernPortal,
  start: { command: string; args?: string[] },
  ready: string,
  options: { theme?: "light" | "dark" } = {},
): Promise<{ id: number; host: AppHost }> {
  const { id } = await portal.call("process_start", { ...start, pty: true, wait: "ready" });
  const host = await renderView(browser, portal.client, await watchCall(portal, id), options);
  await terminalUntil(host.frame, ready, (text) => text.includes(ready)).catch(async (error) => {
    console.log(host.log.console.filter((line) => !line.startsWith("debug")).join("\n"));
    console.log(await host.frame.$eval("#notice", (e) => e.textContent));
    throw error;
  });
  return { id, host };
}

/** Types `text` in the view's terminal as a person at the keyboard (`\n` is Enter). */
async function typeInView(host: AppHost, text: string): Promise<void> {
  await host.frame.click(".terminal");
  for (const [i, line] of text.split("\n").entries()) {
    if (i > 0) await host.page.keyboard.press("Enter");
    if (line !== "") await host.page.keyboard.type(line);
  }
}

pageTest("app view: python live; take over, a password, give back; person_input", async (b) => {
  await using portal = await uiPortal();
  const { id, host } = await viewOf(b, portal, { command: "python3", args: ["-q"] }, ">>>");
  await using _ = host;
  await badgeUntil(host.frame, /agent holds the keyboard/);
  await portal.call("process_write", { id, content: "print(6*7)\n" });
  await terminalUntil(host.frame, "42", (text) => text.includes("42"));
  // Read-only until Take over: keys typed now go nowhere.
  await typeInView(host, "print(1000+1)\n");
  await host.frame.waitForSelector("#notice:not([hidden])");
  assert(!(await terminalText(host.frame)).includes("1001"), "keys before Take over went nowhere");

  await host.frame.click("#take");
  await badgeUntil(host.frame, /you hold the keyboard/);
  await waitFor("the model to be told", () => host.log.modelContext.join("\n"), {
    until: (text) => text.includes("took the keyboard"),
  });
  assertMatch(await portal.fail("process_write", { id, content: "1\n" }), /person/i);
  await typeInView(host, "print(111*3)\n");
  await terminalUntil(host.frame, "333", (text) => text.includes("333"));
  await typeInView(host, "import getpass; p = getpass.getpass()\n");
  await terminalUntil(host.frame, "Password:", (text) => text.includes("Password:"));
  await typeInView(host, "hunter2\nprint(len(p))\n");
  await terminalUntil(host.frame, "7", (text) => /^7$/m.test(text));
  await screenshot(host.page, "app-view-taken-over");

  await host.frame.click("#give");
  await badgeUntil(host.frame, /agent holds the keyboard/);
  // The view tells the model after it shows the badge: wait for that message too.
  await waitFor("the model to be told", () => host.log.modelContext.at(-1) ?? "", {
    until: (text) => text.includes("gave the keyboard"),
  });
  const reply = await portal.call("process_write", { id, content: "print(2+2)\n" });
  assert(reply.person_input.includes("print(111*3)"), JSON.stringify(reply.person_input));
  assert(reply.person_input.includes("[secret]"), "the password shows as [secret]");
  assert(!reply.person_input.includes("hunter2"), "the password itself is not in person_input");
  await terminalUntil(host.frame, "4", (text) => /^4$/m.test(text));
  assertEquals(host.log.network, [], "the view loaded nothing from the network");
});

pageTest(
  "app view: Full screen on the person's asking; teardown gives the keyboard back",
  async (b) => {
    await using portal = await uiPortal();
    const { id, host } = await viewOf(b, portal, { command: "python3", args: ["-q"] }, ">>>");
    await using _ = host;
    // Full screen when the person asks (the button), inline again.
    await host.frame.click("#full");
    await waitFor("full screen", () => host.log.displayModes.join(), {
      until: (m) => m === "fullscreen",
    });
    await host.frame.click("#full");
    await waitFor("inline", () => host.log.displayModes.join(), {
      until: (m) => m.endsWith(",inline"),
    });
    await host.frame.click("#take");
    await badgeUntil(host.frame, /you hold the keyboard/);
    assertEquals((await portal.call("process_inspect", { id })).controlled_by, "person");
    await host.teardown();
    assertEquals((await portal.call("process_inspect", { id })).controlled_by, "agent");
    await portal.call("process_write", { id, content: "print(5*5)\n" });
  },
);

pageTest("app view: vim, less and htop drawn in full screen, inline again after", async (b) => {
  await using portal = await uiPortal();
  const file = `${portal.dir}/notes.txt`;
  await Deno.writeTextFile(file, Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join("\n"));
  const vim = await viewOf(
    b,
    portal,
    { command: "vim", args: ["-u", "NONE", "-N", file] },
    "line 1",
  );
  await using _vim = vim.host;
  await waitFor("a request for full screen", () => vim.host.log.displayModes.join(), {
    until: (modes) => modes.includes("fullscreen"),
  });
  const text = await terminalText(vim.host.frame);
  assert(text.split("\n").length >= 24 && text.includes("notes.txt"), text);
  await screenshot(vim.host.page, "app-view-vim");
  await portal.call("process_write", { id: vim.id, content: ":q!\n" });
  await waitFor("inline again", () => vim.host.log.displayModes.join(), {
    until: (modes) => modes.endsWith("inline"),
  });

  const less = await viewOf(b, portal, { command: "less", args: [file] }, "line 20");
  await using _less = less.host;
  await portal.call("process_write", { id: less.id, keys: ["Space"] });
  await terminalUntil(less.host.frame, "line 30", (text) => text.includes("line 30"));
  await screenshot(less.host.page, "app-view-less");

  const htop = await viewOf(b, portal, { command: "htop" }, "PID");
  await using _htop = htop.host;
  await terminalUntil(htop.host.frame, "htop's meters", (text) => /Tasks:/.test(text));
  await screenshot(htop.host.page, "app-view-htop");
  assert(htop.host.log.displayModes.includes("fullscreen"), "htop asked for full screen");
});

pageTest("app view: a long build in a light host; its recording downloads", async (b) => {
  await using portal = await uiPortal();
  const script = 'for i in $(seq 1 400); do echo "compiling unit $i of 400"; sleep 0.005; done; ' +
    "echo build done";
  const { host } = await viewOf(b, portal, { command: "sh", args: ["-c", script] }, "compiling", {
    theme: "light",
  });
  await using _ = host;
  await terminalUntil(host.frame, "build done", (text) => text.includes("build done"));
  assertEquals(await host.frame.$eval("html", (e) => e.dataset.theme), "light");
  await screenshot(host.page, "app-view-build-light");
  await host.frame.click("#download");
  await waitFor("the download", () => host.log.downloads.length, { until: (n) => n === 1 });
  const [cast] = host.log.downloads;
  assertEquals(cast.mimeType, "application/x-asciicast");
  const [header, ...events] = cast.text.trim().split("\n").map((line) => JSON.parse(line));
  assertEquals(header.version, 2);
  const output = events.filter((e) => e[1] === "o").map((e) => e[2]).join("");
  assert(output.includes("compiling unit 400 of 400") && output.includes("build done"), output);
});

Deno.test({
  name: "app view: a token opens its own view for its own client only",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using portal = await uiPortal();
    const { id } = await portal.call("process_start", { command: "cat", pty: true });
    const { result } = await watchCall(portal, id);
    const { token } = (result._meta as Record<string, { token: string }>)["io.portal/view"];
    assertMatch(token, /^[\w-]{43}$/);
    const poll = await portal.call("view_poll", { token, cursor: 0, wait_ms: 0 });
    assert(Array.isArray(poll.events), "the view's own client polls it");
    // The program's terminal keeps the agent's size until the person holds the keyboard.
    const size = { token, cols: 100, rows: 30 };
    assertMatch(await portal.fail("view_resize", size), /Take over first/);
    await portal.call("view_control", { token, action: "take_over" });
    await portal.call("view_resize", size);
    const inspected = await portal.call("process_inspect", { id });
    assertEquals([inspected.cols, inspected.rows], [100, 30]);
    await portal.call("view_control", { token, action: "give_back" });
    // The same token from another client of the same host (which renders apps too) opens nothing.
    const other = await otherClient(portal);
    try {
      const refused = await other.callTool({ name: "view_poll", arguments: { token, cursor: 0 } });
      assert(refused.isError, "another client's call with the token is refused");
      assertMatch(JSON.stringify(refused.content), /view is closed/);
      // A view's tools take a token, not an id: there is no way to name another process.
      const named = await other.callTool({
        name: "view_keys",
        arguments: { token, data: "x", id },
      });
      assert(named.isError, "an id is not an argument of a view's tool");
    } finally {
      await other.close();
    }
    const guessed = await portal.client.callTool({
      name: "view_poll",
      arguments: { token: token.replace(/^./, (c) => c === "A" ? "B" : "A"), cursor: 0 },
    });
    assert(guessed.isError, "a token one character off opens nothing");
  },
});

/** Another SDK v2 client (of 2025-11-25, rendering apps) of the host `portal` runs. */
async function otherClient(portal: ModernPortal) {
  return await modernClient(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "-A", MAIN],
      env: await serverEnv(portal.dir),
      stderr: "inherit",
    }),
    UI_CAPABILITIES,
    "another-client",
    true,
  );
}

Deno.test({
  name: "app view: a view whose client ended gives the keyboard back within its lease",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using portal = await uiPortal();
    const first = await otherClient(portal);
    const started = await first.callTool({
      name: "process_start",
      arguments: { command: "cat", pty: true, keep: true },
    });
    const { id } = started.structuredContent as { id: number };
    const watched = await first.callTool({ name: "process_watch", arguments: { id } });
    const { token } = (watched._meta as Record<string, { token: string }>)["io.portal/view"];
    await first.callTool({ name: "view_control", arguments: { token, action: "take_over" } });
    assertEquals((await portal.call("process_inspect", { id })).controlled_by, "person");
    await first.close(); // The client ends; its kept process stays, its view stops polling.
    assertMatch(await portal.fail("view_poll", { token, cursor: 0 }), /view is closed/);
    await waitFor("the keyboard back", async () => (await portal.call("process_inspect", { id })), {
      until: (d) => d.controlled_by === "agent",
      timeoutMs: LEASE_MS + 5000,
      intervalMs: 500,
    });
    await portal.call("process_kill", { id });
  },
});

Deno.test({
  name: "app view: a client without the extension sees today's tools and link",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using plain = await ModernPortal.start({ legacy: true });
    const { tools } = await plain.client.listTools();
    assertEquals(tools.length, 15);
    assert(tools.every((tool) => tool._meta === undefined), "no tool carries _meta");
    const { id } = await plain.call("process_start", { command: "cat", pty: true });
    const result = await plain.client.callTool({ name: "process_watch", arguments: { id } });
    assertEquals(result._meta, undefined);
    assertMatch((result.structuredContent as { url: string }).url, /^http:\/\/127\.0\.0\.1:/);
    const unknown = await plain.client.callTool({
      name: "view_poll",
      arguments: { token: "x", cursor: 0 },
    }).then(() => "answered", (error: Error) => error.message);
    assertMatch(unknown, /view_poll/);

    // One that renders apps, in either revision: the view's resource and its tools.
    for (const modern of [false, true]) {
      await using ui = await uiPortal(modern);
      const listed = (await ui.client.listTools()).tools;
      const watch = listed.find((tool) => tool.name === "process_watch")!;
      assertEquals(watch._meta, { ui: { resourceUri: "ui://portal/terminal" } });
      // What a model sees (a host shows it no app-only tool) stays within the listing's cap.
      const forModel = listed.filter((tool) => !tool.name.startsWith("view_"));
      const size = JSON.stringify(forModel).length;
      assert(size <= LISTING_MAX_CHARS, `what a model sees of tools/list is ${size} characters`);
      const viewTools = listed.filter((tool) => tool.name.startsWith("view_"));
      assertEquals(viewTools.length, 6);
      for (const tool of viewTools) assertEquals(tool._meta, { ui: { visibility: ["app"] } });
      const read = await ui.client.readResource({ uri: "ui://portal/terminal" });
      const [page] = read.contents as { mimeType: string; text: string; _meta: unknown }[];
      assertEquals(page.mimeType, "text/html;profile=mcp-app");
      assertEquals(page._meta, {
        ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true },
      });
      assert(!/<script[^>]+src=|<link[^>]+href=/.test(page.text), "nothing loaded by URL");
      const missing = await ui.client.readResource({ uri: "ui://portal/other" }).then(
        () => "read",
        (error: Error) => error.message,
      );
      assertMatch(missing, /No resource ui:\/\/portal\/other: Portal has one/);
      const { id } = await ui.call("process_start", { command: "cat", pty: true });
      const watched = await ui.client.callTool({ name: "process_watch", arguments: { id } });
      const { token } = (watched._meta as Record<string, { token: string }>)["io.portal/view"];
      const { events } = await ui.call("view_screen", { token });
      assertEquals(events.map((e: { type: string }) => e.type).slice(0, 2), ["control", "screen"]);
    }
  },
});
