/**
 * The terminal view (an MCP App) in a real browser, in a host built on
 * ext-apps' AppBridge (tests/helpers/app_host.ts): the view of a process
 * drawn live in a sandboxed iframe on another origin, fed through the host
 * by the view's tools; Take over and Give back with the page's semantics;
 * full-screen programs; the recording; and a client without the extension
 * seeing what it always did.
 *
 * @module
 */
import type { CallToolResult } from "@modelcontextprotocol/client";
import { ModernPortal } from "../../dev/modern_client.ts";
import { waitFor } from "../../dev/wait.ts";
import { renderView, UI_CAPABILITIES } from "../helpers/app_host.ts";
import { screenshot, sharedBrowser, terminalUntil } from "../helpers/browser.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";

const pageTest = sharedBrowser();

/** Portal and an SDK v2 client that renders apps, of 2025-11-25 (as hosts are) or 2026-07-28. */
function uiPortal(modern = false): Promise<ModernPortal> {
  return ModernPortal.start({ capabilities: UI_CAPABILITIES, legacy: !modern });
}

async function watchCall(portal: ModernPortal, id: number) {
  const result = await portal.client.callTool({ name: "process_watch", arguments: { id } });
  return { args: { id }, result: result as CallToolResult & Record<string, unknown> };
}

pageTest(
  "app view: python's REPL live in the host, then Take over and Give back",
  async (browser) => {
    await using portal = await uiPortal();
    const { id } = await portal.call("process_start", {
      command: "python3",
      args: ["-q"],
      pty: true,
      wait: "ready",
    });
    const call = await watchCall(portal, id);
    await using host = await renderView(browser, portal.client, call);
    await terminalUntil(host.frame, ">>>", (text) => text.includes(">>>")).catch(async (e) => {
      console.log(host.log.console.filter((l) => !l.startsWith("debug")).join("\n"));
      console.log(await host.frame.$eval("#notice", (e) => e.textContent));
      throw e;
    });
    await portal.call("process_write", { id, content: "print(6*7)\n" });
    await terminalUntil(host.frame, "42", (text) => text.includes("42"));
    await screenshot(host.page, "app-python");
    assertEquals(host.log.network, []);
  },
);
