/**
 * A host of MCP Apps for the terminal view's tests, built as web hosts are:
 * a host page (http://localhost:PORT/) that renders the view in a sandboxed
 * iframe on another origin (http://127.0.0.1:PORT/view, its page as
 * `resources/read` gave it, under the CSP its `_meta.ui.csp` asks for), and
 * ext-apps' `AppBridge` speaking for the host, connected to Portal through
 * the SDK v2 client. The bridge runs in the test, beside its client; the host
 * page relays the iframe's postMessage traffic to it and back (puppeteer's
 * exposed function, and a postMessage from the host page's window, as a
 * host's own script would). What the view asks of the host (display mode,
 * model context, downloads) is kept for the test to look at.
 *
 * @module
 */
import { AppBridge } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { Client, JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import type { BrowserContext, Frame, Page } from "puppeteer-core";
import { waitFor } from "../../dev/wait.ts";
import { newPage } from "./browser.ts";

/** What the view asked of its host. */
export interface HostLog {
  displayModes: string[];
  modelContext: string[];
  downloads: { name: string; mimeType?: string; text: string }[];
  /** Requests the view's frame made beyond its own page (it must make none). */
  network: string[];
  /** What the page wrote to its console (errors included), to tell why a test failed. */
  console: string[];
}

/** The MCP Apps capability a client declares to see the view. */
export const UI_CAPABILITIES = {
  extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
};

/** Waits until the terminal view in `frame` says `what` in its badge (who holds the keyboard). */
export function badgeUntil(frame: Frame, what: RegExp): Promise<string> {
  return waitFor(
    `the view to say ${what}`,
    () => frame.$eval("#state", (e) => e.textContent ?? ""),
    {
      until: (text) => what.test(text),
    },
  );
}

/** One rendered view in the host page. */
export interface AppHost extends AsyncDisposable {
  page: Page;
  bridge: AppBridge;
  frame: Frame;
  log: HostLog;
  /** Tears the view down as a host does when its message is closed. */
  teardown(): Promise<void>;
}

/** The spec's CSP for a view's page, with the domains it declares. */
function cspOf(csp: { connectDomains?: string[]; resourceDomains?: string[] } = {}): string {
  const connect = csp.connectDomains?.length ? csp.connectDomains.join(" ") : "'none'";
  const resources = (csp.resourceDomains ?? []).join(" ");
  return `default-src 'none'; script-src 'self' 'unsafe-inline' ${resources}; ` +
    `style-src 'self' 'unsafe-inline' ${resources}; img-src 'self' data: ${resources}; ` +
    `font-src 'self' data: ${resources}; connect-src ${connect}; frame-src 'none'`;
}

/** The host page's own script: the iframe's messages to the bridge, and the bridge's to it. */
const HOST_SCRIPT = `
const frame = document.querySelector("iframe");
addEventListener("message", (event) => {
  if (event.source === frame.contentWindow) portalToBridge(JSON.stringify(event.data));
});
function toView(json) { frame.contentWindow.postMessage(JSON.parse(json), "*"); }
function setHeight(height) { frame.style.height = height + "px"; }
`;

/** A transport from the bridge to the iframe, through the host page. */
class HostPageTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  constructor(private readonly page: Page) {}
  start(): Promise<void> {
    return Promise.resolve();
  }
  async send(message: JSONRPCMessage): Promise<void> {
    await this.page.evaluate(`toView(${JSON.stringify(JSON.stringify(message))})`);
  }
  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }
}

/**
 * Renders the view of `toolResult` (a `process_watch` result called with
 * `args`) the way a host does: reads the tool's resource through `client`,
 * serves it on another origin, connects the bridge, sends the tool's input
 * and result. `theme` is the host's.
 */
export async function renderView(
  browser: BrowserContext,
  client: Client,
  call: { args: Record<string, unknown>; result: Record<string, unknown> },
  options: { theme?: "light" | "dark"; width?: number } = {},
): Promise<AppHost> {
  const { tools } = await client.listTools();
  const watch = tools.find((tool) => tool.name === "process_watch")!;
  const uri = (watch._meta as { ui?: { resourceUri?: string } })?.ui?.resourceUri;
  if (uri === undefined) throw new Error("process_watch carries no _meta.ui.resourceUri");
  const read = await client.readResource({ uri });
  const content = read.contents[0] as {
    text: string;
    mimeType: string;
    _meta?: { ui?: { csp?: Record<string, string[]> } };
  };
  const width = options.width ?? 820;
  const server: Deno.HttpServer<Deno.NetAddr> = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
  }, (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/view") {
      return new Response(content.text, {
        headers: {
          "content-type": "text/html; charset=utf-8",
          "content-security-policy": cspOf(content._meta?.ui?.csp),
        },
      });
    }
    return new Response(
      `<!doctype html><html><body style="margin:0;background:#202124">` +
        `<iframe src="http://127.0.0.1:${server.addr.port}/view" sandbox="allow-scripts ` +
        `allow-same-origin allow-downloads" style="border:0;width:${width}px;height:300px">` +
        `</iframe><script>${HOST_SCRIPT}</script></body></html>`,
      { headers: { "content-type": "text/html; charset=utf-8" } },
    );
  });
  const log: HostLog = {
    displayModes: [],
    modelContext: [],
    downloads: [],
    network: [],
    console: [],
  };
  const page = await newPage(browser);
  page.on("console", (message) => log.console.push(`${message.type()}: ${message.text()}`));
  page.on("pageerror", (error) => log.console.push(`error: ${error}`));
  page.on("request", (request) => {
    const url = request.url();
    if (!url.startsWith(`http://localhost:${server.addr.port}/`) && !url.endsWith("/view")) {
      log.network.push(url);
    }
  });
  const transport = new HostPageTransport(page);
  let context = {
    theme: options.theme ?? "dark",
    displayMode: "inline" as "inline" | "fullscreen",
    availableDisplayModes: ["inline", "fullscreen"] as ("inline" | "fullscreen")[],
    containerDimensions: { maxHeight: 2000, width },
    platform: "web" as const,
  };
  const bridge = new AppBridge(
    client,
    { name: "portal-test-host", version: "0.0.0" },
    { serverTools: {}, downloadFile: {}, updateModelContext: { text: {} }, openLinks: {} },
    { hostContext: context },
  );
  const resizeFrame = (height: number) => page.evaluate(`setHeight(${Number(height)})`);
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined && context.displayMode === "inline") resizeFrame(height);
  };
  bridge.onrequestdisplaymode = async ({ mode }) => {
    log.displayModes.push(mode);
    if (mode === "pip") return { mode: context.displayMode };
    context = { ...context, displayMode: mode };
    if (mode === "fullscreen") await resizeFrame(700);
    await bridge.sendHostContextChange({ displayMode: mode });
    return { mode };
  };
  bridge.onupdatemodelcontext = (params) => {
    const text = (params.content ?? []).map((block) => (block as { text?: string }).text ?? "");
    log.modelContext.push(text.join("\n"));
    return Promise.resolve({});
  };
  bridge.ondownloadfile = ({ contents }) => {
    for (const item of contents) {
      const resource = (item as { resource?: { uri: string; mimeType?: string; text?: string } })
        .resource;
      if (resource) {
        log.downloads.push({
          name: resource.uri,
          mimeType: resource.mimeType,
          text: resource.text ?? "",
        });
      }
    }
    return Promise.resolve({});
  };
  let initialized = false;
  bridge.oninitialized = () => initialized = true;
  await page.exposeFunction("portalToBridge", (json: string) => {
    transport.onmessage?.(JSON.parse(json));
  });
  await bridge.connect(transport);
  await page.goto(`http://localhost:${server.addr.port}/`);
  await waitFor("the view to initialize", () => initialized, { until: (done) => done });
  const frame = page.frames().find((f) => f.url().endsWith("/view"))!;
  await bridge.sendToolInput({ arguments: call.args });
  await bridge.sendToolResult(call.result as Parameters<AppBridge["sendToolResult"]>[0]);
  return {
    page,
    bridge,
    frame,
    log,
    teardown: async () => {
      await bridge.teardownResource({});
    },
    async [Symbol.asyncDispose]() {
      await bridge.close().catch(() => {});
      await page.close().catch(() => {});
      await server.shutdown();
    },
  };
}
