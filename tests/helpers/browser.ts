/**
 * A real headless Chromium for the watch page's tests (Debian's `chromium`,
 * driven by puppeteer-core over the DevTools protocol), with a new empty
 * profile and nothing that reaches the network; one per test file
 * ({@link sharedBrowser}), each test in a context of its own; and the page's
 * terminal text as the DOM holds it. Each screenshot goes to a directory that
 * stays after the test (printed), so a person can look at it.
 *
 * @module
 */
import puppeteer, {
  type Browser,
  type BrowserContext,
  type Frame,
  type Page,
} from "puppeteer-core";
import type { Portal } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";
import { withTimeout } from "../../src/async.ts";

/** Debian's Chromium. */
export const CHROMIUM = "/usr/bin/chromium";

/** Whether a browser is there to test with. */
export const HAS_CHROMIUM = (() => {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
})();

/** Browser tests run where Debian's chromium is installed (.ci/run installs it). */
export const browserTest = { ignore: !HAS_CHROMIUM, sanitizeOps: false, sanitizeResources: false };

/** Types `text` on the page's terminal, as a person at the keyboard (`\n` is Enter). */
export async function typeOnPage(page: Page, text: string): Promise<void> {
  await page.click(".terminal");
  for (const [i, line] of text.split("\n").entries()) {
    if (i > 0) await page.keyboard.press("Enter");
    if (line !== "") await page.keyboard.type(line);
  }
}

/**
 * A browser, its profile removed when disposed. The profile is also its HOME
 * and XDG directories: Chromium writes dconf and crash-report files there
 * whatever --user-data-dir says, and the suite must leave the user's HOME as
 * it found it.
 */
export async function openBrowser(): Promise<Browser & AsyncDisposable> {
  const profile = await tempDir("portal-chromium-");
  const home = profile.path;
  const env: Record<string, string> = { ...Deno.env.toObject(), HOME: home };
  for (const name of ["XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"]) {
    delete env[name];
  }
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Every call to the browser has a deadline: a Chromium that stops answering (seen once
    // under a loaded machine) fails the test instead of holding the suite for ever.
    protocolTimeout: 30_000,
    env,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-breakpad",
      `--user-data-dir=${home}/profile`,
    ],
  });
  return Object.assign(browser, {
    async [Symbol.asyncDispose]() {
      // A browser that does not close in time is killed: its process, then its profile.
      const closed = await withTimeout(
        browser.close().then(() => true, () => false),
        10_000,
        false,
      );
      if (!closed) browser.process()?.kill("SIGKILL");
      await profile[Symbol.asyncDispose]();
    },
  });
}

/** A test of {@link sharedBrowser}: its own browser context, closed after it whatever the outcome. */
export type PageTest = (
  name: string,
  fn: (browser: BrowserContext) => Promise<void>,
  options?: { ignore?: boolean },
) => void;

/**
 * One Chromium for the browser tests of a file, as `sharedPortal` does for
 * servers: the first of its tests to run launches it, and it is closed after
 * the file's last test (a launch is ~3 CPU-seconds). Each test gets a new
 * browser context, with cookies, storage and cache of its own, so no test
 * sees what another left; its pages close with it.
 *
 * @example
 * ```ts ignore
 * const pageTest = sharedBrowser();
 * pageTest("watch page: ...", async (browser) => { const page = await newPage(browser); });
 * ```
 */
export function sharedBrowser(): PageTest {
  let browser: ReturnType<typeof openBrowser> | undefined;
  Deno.test.afterAll(async () => {
    const opened = await browser?.catch(() => undefined);
    await opened?.[Symbol.asyncDispose]();
  });
  return (name, fn, options = {}) =>
    Deno.test({
      name,
      ...browserTest,
      ignore: browserTest.ignore || options.ignore === true,
      fn: async () => {
        const context = await (await (browser ??= openBrowser())).createBrowserContext();
        try {
          await fn(context);
        } finally {
          // Within the protocol's deadline; a browser past it is killed after the last test.
          await context.close().catch(() => {});
        }
      },
    });
}

/** A new tab of `browser` at a size where the page and an 80×24 terminal fit. */
export async function newPage(browser: Browser | BrowserContext): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 720 });
  return page;
}

let shots: string | undefined;

/** Saves a screenshot of `page` as `name`.png in this run's screenshot directory; says where. */
export async function screenshot(page: Page, name: string): Promise<string> {
  shots ??= await Deno.makeTempDir({ prefix: "portal-watch-screenshots-" });
  const path = `${shots}/${name}.png`;
  await page.screenshot({ path: path as `${string}.png` });
  console.log(`screenshot: ${path}`);
  return path;
}

/** The text of the page's (or a frame's) terminal rows, as the DOM holds it (trailing blanks trimmed). */
export function terminalText(page: Page | Frame): Promise<string> {
  return page.$eval(
    ".xterm-rows",
    (rows) =>
      [...rows.children].map((row) => (row.textContent ?? "").replace(/\s+$/, "")).join("\n"),
  );
}

/** Waits until the page's terminal text satisfies `done`; returns it. */
export function terminalUntil(
  page: Page | Frame,
  what: string,
  done: (text: string) => boolean,
  timeoutMs?: number,
): Promise<string> {
  return waitFor(`the page's terminal to show ${what}`, () => terminalText(page), {
    until: done,
    timeoutMs,
    intervalMs: 20,
  });
}

/** Starts python3's REPL on a PTY and opens its watch page in `browser`; returns once it shows `>>>`. */
export async function watchedPython(
  portal: Portal,
  browser: Browser | BrowserContext,
): Promise<{ id: number; page: Page }> {
  const id = await portal.spawn("python3", ["-q"], { pty: true, wait: "ready" });
  const page = await newPage(browser);
  await page.goto((await portal.call("process_watch", { id })).url);
  await terminalUntil(page, ">>>", (text) => text.includes(">>>"));
  return { id, page };
}
