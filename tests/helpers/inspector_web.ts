/**
 * The official MCP Inspector's web UI (a client nobody here wrote, whose Apps
 * tab renders MCP Apps in a sandboxed iframe on a second origin), run by Deno
 * with Portal as its stdio server, and driven in headless Chromium the way a
 * person uses it: connect, call a tool from the Tools tab, open an app from
 * the Apps tab. Its Node engine floor (22.19) is above the Node here, so Deno
 * runs it; .ci/run fetches it first.
 *
 * @module
 */
import type { BrowserContext, Frame, Page } from "puppeteer-core";
import { freePort } from "../../dev/free_port.ts";
import { homeEnv } from "../../dev/home.ts";
import { denoDir, endHost, MAIN, serverEnv } from "../../dev/portal_client.ts";
import { type TempDir, tempDir } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";
import { settlesWithin } from "../../src/async.ts";
import { screenshot } from "./browser.ts";

/** The Inspector release these tests drive (the first with an Apps tab is 2.x). */
export const INSPECTOR = "npm:@modelcontextprotocol/inspector@2.12.0";

/** Its first start may download it: the deadline for its "up and running". */
const START_MS = 180_000;

/** A running Inspector with Portal behind it, and a page of it in the browser. */
export interface InspectorWeb extends AsyncDisposable {
  /** The Inspector's tab in the browser. */
  page: Page;
  /** Calls `name` with `args` from the Tools tab; returns the structured output it shows. */
  callTool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Opens the app of the tool titled `title` from the Apps tab; returns the view's frame. */
  openApp(title: string): Promise<Frame>;
}

/** Starts the Inspector on Portal, opens it in `browser` and connects; disposing ends both. */
export async function openInspector(browser: BrowserContext): Promise<InspectorWeb> {
  const dir = await tempDir("portal-inspector-");
  const inspector = await startInspector(dir);
  const end = async () => {
    await inspector.stop();
    await endHost(dir.path);
    await dir[Symbol.asyncDispose]();
  };
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 1000 });
    await page.goto(inspector.url);
    const connect = 'input[type=checkbox][aria-label^="Connect or disconnect"]';
    await page.waitForSelector(connect, { timeout: 20_000 });
    await page.click(connect);
    await page.waitForSelector('[data-testid="connection-status"][data-status="connected"]', {
      timeout: 60_000,
    });
    return {
      page,
      callTool: (name, args) => callTool(page, name, args),
      openApp: (title) => openApp(page, title),
      async [Symbol.asyncDispose]() {
        await page.close().catch(() => {});
        await end();
      },
    };
  } catch (error) {
    await end();
    throw error;
  }
}

/**
 * The Inspector's process, on two free loopback ports, with Portal (kept in
 * `dir`: its database, runtime directory and home) as its ad-hoc stdio server.
 * The Inspector passes a stdio server only a few variables of its own, so
 * Portal's are given through `env`.
 */
async function startInspector(dir: TempDir) {
  const server = await serverEnv(dir.path);
  const portalVars = ["DENO_DIR", "HOME", "XDG_RUNTIME_DIR", "PORTAL_DB_PATH", "PORTAL_DATA_DIR"]
    .map((name) => `${name}=${server[name]}`);
  const token = crypto.randomUUID().replaceAll("-", "");
  const port = freePort();
  const home = `${dir.path}/inspector-home`;
  await Deno.mkdir(home);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-config", "--no-lock", INSPECTOR, "--web", "--"]
      .concat("env", portalVars, Deno.execPath(), "run", "-A", MAIN),
    cwd: dir.path,
    env: {
      ...homeEnv(home),
      DENO_DIR: await denoDir(),
      NO_COLOR: "1",
      HOST: "127.0.0.1",
      CLIENT_PORT: String(port),
      MCP_SANDBOX_PORT: String(freePort()),
      MCP_AUTO_OPEN_ENABLED: "false",
      MCP_INSPECTOR_API_TOKEN: token,
      MCP_INSPECTOR_SECRET_STORE: "memory",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Both streams are read to their end, so the Inspector never blocks on a full pipe.
  let said = "";
  const drain = async (stream: ReadableStream<Uint8Array<ArrayBuffer>>) => {
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      said = (said + text).slice(-20_000);
    }
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* ended */ }
    if (!await settlesWithin(child.status, 5_000)) {
      try {
        child.kill("SIGKILL");
      } catch { /* ended */ }
      await child.status;
    }
    await drained;
  };
  try {
    await waitFor("the MCP Inspector to be up", () => said.includes("is up and running"), {
      timeoutMs: START_MS,
      intervalMs: 100,
    });
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\nthe Inspector said:\n${said}`);
  }
  return { url: `http://127.0.0.1:${port}/?MCP_INSPECTOR_API_TOKEN=${token}`, stop };
}

/** Whether `text` is whole JSON (the editor may show a result before all of it is drawn). */
function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Shows the top tab `name` (Servers, Apps, Tools, Resources). */
async function showTab(page: Page, name: string): Promise<void> {
  await page.$eval(
    `input[type=radio][id$="-${name}"]`,
    (e) => (e as unknown as { click(): void }).click(),
  );
}

/** The JSON the Tools tab shows as the last call's structured output ("" when none shows). */
function structuredOutput(page: Page): Promise<string> {
  return page.$$eval(
    '[data-testid="structured-output"] .ace_text-layer .ace_line',
    (lines) => lines.map((line) => line.textContent ?? "").join("\n"),
  );
}

async function callTool(
  page: Page,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  await showTab(page, "Tools");
  const editor = 'textarea[aria-label^="Arguments JSON"]';
  const execute = "::-p-text(Execute Tool)";
  // The tool's entry pressed until its form shows (the last call's results stand where the form
  // was until closed), as the Apps tab's entry is.
  let pressed = 0;
  await waitFor(`the Tools tab to show ${name}'s form`, async () => {
    const close = await page.$('button[aria-label="Close results"]');
    if (close) await close.click();
    else if (Date.now() - pressed > 1_000) {
      pressed = Date.now();
      await pressEntry(page, (text) => text.endsWith(name));
    }
    // Shown: no results stand, the form's button is there, and the entry selected (shaded) is name's.
    return !close && (await page.$(execute)) !== null &&
      (await page.$$eval(
        ".list-item",
        (items, name) =>
          items.some((item) =>
            (item.textContent ?? "").endsWith(name) &&
            (item as unknown as { style: { background: string } }).style.background !== ""
          ),
        name,
      ));
  }, { timeoutMs: 30_000, intervalMs: 100 });
  if (!(await page.$(editor))) {
    await (await page.waitForSelector("::-p-text(Edit as JSON)"))!.click();
  }
  await page.waitForSelector(editor);
  await page.click(editor);
  await page.keyboard.down("Control");
  await page.keyboard.press("a");
  await page.keyboard.up("Control");
  await page.keyboard.press("Backspace");
  await page.keyboard.type(JSON.stringify(args));
  const before = await structuredOutput(page);
  await (await page.$(execute))!.click();
  const shown = await waitFor(
    `the Inspector to show ${name}'s result`,
    () => structuredOutput(page),
    {
      until: (text) => text !== before && parses(text),
      timeoutMs: 30_000,
      intervalMs: 50,
    },
  ).catch(async (error) => {
    const panel = await page.$eval('[data-testid="tools-screen"]', (e) => e.textContent ?? "");
    await screenshot(page, `inspector-failed-${name}`);
    throw new Error(`${error.message}\nthe Tools tab shows: ${panel}`);
  });
  return JSON.parse(shown);
}

async function openApp(page: Page, title: string): Promise<Frame> {
  await showTab(page, "Apps");
  // The view is a frame that was not there before: a closed app's frame may linger a moment.
  const before = new Set(page.frames());
  // An app left open from before is closed, so that opening it calls its tool anew.
  const close = '[data-testid="apps-form"] button[aria-label="Close"]';
  if (await page.$(close)) await page.click(close);
  // A person's click, again until the Apps tab takes it: one at once after the tab shows is
  // lost while the list is still being made (an element's click() is never taken).
  let clicked = 0;
  const view = await waitFor(`${title}'s view to load`, async () => {
    for (const frame of page.frames()) {
      if (!before.has(frame) && await frame.$("#take").catch(() => null)) return frame;
    }
    const open = await page.$("::-p-text(Open App)");
    if (open) await open.click();
    else if (Date.now() - clicked > 1_000 && await page.$("::-p-text(Select an app)")) {
      clicked = Date.now();
      await pressEntry(page, (text) => text.startsWith(title));
    }
    return undefined;
  }, { timeoutMs: 30_000, intervalMs: 100 }).catch(async (error) => {
    await screenshot(page, "inspector-failed-app");
    throw error;
  });
  return view!;
}

/** Presses and releases the mouse on the first list entry whose text `matches`, if one shows. */
async function pressEntry(page: Page, matches: (text: string) => boolean): Promise<void> {
  for (const button of await page.$$("button")) {
    if (!matches(await button.evaluate((e) => e.textContent ?? ""))) continue;
    const box = await button.boundingBox();
    if (!box) return;
    await page.mouse.move(box.x + 20, box.y + 10);
    await page.mouse.down();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await page.mouse.up();
    return;
  }
}
