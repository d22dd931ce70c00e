/**
 * The watch page in a real headless Chromium: what a person sees of the
 * agent's programs, and taking over the keyboard. Each test saves a
 * screenshot and prints where.
 */
import type { Page } from "puppeteer-core";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { type Json, Portal } from "../../dev/portal_client.ts";
import { waitFor } from "../../dev/wait.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { runCli } from "../helpers/cli.ts";
import { sharedServer } from "../helpers/portal.ts";
import {
  newPage,
  screenshot,
  sharedBrowser,
  terminalText,
  terminalUntil,
  typeOnPage,
  watchedPython,
} from "../helpers/browser.ts";

const pageTest = sharedBrowser();

/**
 * One server for the tests that look at their own processes only (the list
 * test, which looks at every process of its client, starts its own): a
 * start saved per test. Ended after the file's last test.
 */
const server = sharedServer();

/** Presses a button of the page and waits for what it leads to. */
async function press(page: Page, button: "take" | "give"): Promise<void> {
  await page.click(`#${button}`);
  const other = button === "take" ? "#give" : "#take";
  await page.waitForSelector(`${other}:not([hidden])`, { timeout: 5000 });
}

pageTest("watch page: a python REPL's >>> at once, then a line printed later", async (browser) => {
  const portal = await server();
  const { id, page } = await watchedPython(portal, browser);
  // How soon the line shows is a figure of bench/watch_latency.ts.
  await portal.call("process_write", { id, content: 'print("from the agent", 6 * 7)\n' });
  await terminalUntil(page, "the agent's line", (text) => text.includes("from the agent 42"));
  await screenshot(page, "python");
  // The token is in the page's memory, no longer in the address bar.
  assert(!page.url().includes("token"), page.url());
  assertMatch(await page.$eval("#title", (e) => e.textContent ?? ""), /python3 -q/);
  const item = await page.$eval(`.process[data-id="${id}"]`, (e) => e.textContent ?? "");
  assertMatch(item, /waiting for input/);
});

pageTest(
  "watch page: keys go nowhere until Take over; then the person types, the agent waits",
  async (browser) => {
    const portal = await server();
    const { id, page } = await watchedPython(portal, browser);

    // Read-only: the keys reach the page (it says so) and nothing else.
    await typeOnPage(page, "print(1 + 1)\n");
    await page.waitForSelector('#notice[data-kind="flash"]', { timeout: 5000 });
    assertEquals((await portal.call("process_inspect", { id })).stdin_count, 0);
    assertEquals((await portal.call("process_read_new", { id })).records, []);

    await press(page, "take");
    assertEquals((await portal.call("process_inspect", { id })).controlled_by, "person");
    const listed = (await portal.call("process_list")).processes.find((p: Json) => p.id === id);
    assertEquals(listed.controlled_by, "person");
    await typeOnPage(page, "print(6*7)\n");
    await terminalUntil(page, "42", (text) => /^42$/m.test(text));
    await screenshot(page, "python-taken-over");
    const refused = await portal.fail("process_write", { id, content: "print('agent')\n" });
    assertMatch(refused, /A person is typing into process \d+/);
    assertMatch(refused, /process_read_new with wait: "ready"/);
    const read = await portal.call("process_read_new", { id, wait: "ready" });
    assertMatch(read.output, /^42$/m);
    assertEquals(read.person_input, "print(6*7)\r");
    // Recorded as input, like the agent's.
    const stdin = await portal.call("process_read", { id, source: "stdin", duration: 600_000 });
    assertEquals(stdin.records.map((r: { content: string }) => r.content).join(""), "print(6*7)\r");

    await press(page, "give");
    assertEquals((await portal.call("process_inspect", { id })).controlled_by, "agent");
    const again = await portal.call("process_write", { id, content: "print('agent again')\n" });
    assertMatch(again.output, /^agent again$/m);
    assertEquals(again.person_input, undefined);

    // A second page takes the keyboard from the first; closing it gives it back to the agent.
    await press(page, "take");
    const other = await newPage(browser);
    await other.goto((await portal.call("process_watch", { id })).url);
    await terminalUntil(other, "the session", (text) => text.includes("agent again"));
    await press(other, "take");
    await page.bringToFront();
    await page.waitForSelector("#take:not([hidden])", { timeout: 5000 });
    assertEquals((await portal.call("process_inspect", { id })).controlled_by, "person");
    await other.close();
    await waitFor(
      "the keyboard back with the agent",
      () => portal.call("process_inspect", { id }),
      {
        until: (info) => info.controlled_by === "agent",
      },
    );
  },
);

pageTest(
  "watch page: vim's full screen (alternate buffer, status line), live and on opening",
  async (browser) => {
    const portal = await server();
    await using dir = await tempDir("portal-vim-");
    const file = `${dir.path}/greet.py`;
    await Deno.writeTextFile(
      file,
      'def greet(name):\n    return f"hello {name}"\n\nprint(greet("portal"))\n',
    );
    const id = await portal.spawn("bash", ["--norc", "--noprofile"], {
      pty: true,
      wait: "ready",
      env: { PS1: "$ " },
    });
    await portal.call("process_write", { id, content: "echo before vim\n" });
    const live = await newPage(browser);
    await live.goto((await portal.call("process_watch", { id })).url);
    await terminalUntil(live, "bash's prompt", (text) => text.includes("before vim"));

    await portal.call("process_write", {
      id,
      content: `vim --clean -c 'set laststatus=2' ${file}\n`,
    });
    const onVim = (text: string) =>
      text.includes("def greet(name):") && /greet\.py/.test(text.split("\n").at(-2) ?? "") &&
      !text.includes("before vim");
    await terminalUntil(live, "vim's screen, status line included", onVim);
    // A page opened now starts from the emulator's screen: the same picture.
    const opened = await newPage(browser);
    await opened.goto((await portal.call("process_watch", { id })).url);
    await terminalUntil(opened, "vim's screen", onVim);
    assertEquals(await terminalText(opened), await terminalText(live));
    // Colours: vim highlights the Python keywords.
    const coloured = await opened.$$eval(
      ".xterm-rows span",
      (spans) =>
        spans.filter((s) => /xterm-fg-|color/.test(s.className + (s.getAttribute("style") ?? "")))
          .length,
    );
    assert(coloured > 0, "vim's syntax colours are on the page");
    await screenshot(opened, "vim");

    await portal.call("process_write", { id, content: ":q\r", wait: "ready" });
    await live.bringToFront(); // A tab in the background draws nothing.
    await terminalUntil(
      live,
      "the shell again (primary buffer)",
      (text) => text.includes("before vim") && !text.includes("def greet"),
    );
  },
);

pageTest(
  "watch page: without an id it lists every process of the client, and switches",
  async (browser) => {
    await using portal = await Portal.start();
    const python = await portal.spawn("python3", ["-q"], { pty: true, wait: "ready" });
    const sleeper = await portal.spawn("sh", ["-c", "echo on pipes; sleep 30"]);
    const page = await newPage(browser);
    await page.goto((await portal.call("process_watch", {})).url);
    await page.waitForSelector(`.process[data-id="${sleeper}"]`, { timeout: 5000 });
    await terminalUntil(page, "the first process", (text) => text.includes(">>>"));
    await page.click(`.process[data-id="${sleeper}"]`);
    await terminalUntil(page, "the pipe process's output", (text) => text.includes("on pipes"));
    await waitFor("the list to show both", () => page.$eval("#processes", (e) => e.textContent), {
      until: (text) => text?.includes("python3 -q") === true && text.includes("sh -c"),
    });
    assertEquals(new URL(page.url()).searchParams.get("id"), String(sleeper));
    await portal.call("process_kill", { id: python });
    await waitFor(
      "the list to show python killed",
      () => page.$eval("#processes", (e) => e.textContent),
      {
        until: (text) => text?.includes("killed") === true,
      },
    );
    await screenshot(page, "list");
  },
);

pageTest(
  "watch page: a flood shows its latest output while it runs, then the exact last screen",
  async (browser) => {
    const portal = await server();
    const id = await portal.spawn("seq", ["1", "2000000000"], { pty: true });
    const page = await newPage(browser);
    await page.goto((await portal.call("process_watch", { id })).url);
    const notice = () => page.$eval("#notice", (e) => e.textContent ?? "");
    await waitFor("the page to say the program prints faster than it can draw", notice, {
      until: (text) => text.includes("faster than a page can draw"),
    });
    // The numbers drawn keep growing: the page follows the flood, not the screen of its start.
    const highest = async () => Math.max(0, ...(await terminalText(page)).split(/\D+/).map(Number));
    const first = await highest();
    await waitFor("a later picture of the flood", highest, { until: (n) => n > first + 1000 });
    await screenshot(page, "flood");
    await portal.call("process_kill", { id });
    const last = (await portal.call("process_screen", { id })).lines.join("\n").trimEnd();
    await terminalUntil(page, "the exact last screen", (text) => text.trimEnd() === last);
    await waitFor("the ended notice", notice, { until: (text) => text.includes("has ended") });
  },
);

pageTest(
  "watch page: a link for a name opens the live process of that name, and says so",
  async (browser) => {
    const portal = await server();
    await using dir = await tempDir("portal-watch-name-");
    const calc = { pty: true, name: "calc", wait: "ready" };
    const ended = await portal.spawn("python3", ["-q"], calc);
    await portal.call("process_kill", { id: ended });
    const live = await portal.spawn("python3", ["-q"], calc);
    await portal.spawn("sleep", ["30"]);
    const run = await runCli(dir.path, ["watch", "calc"], { PORTAL_DB_PATH: portal.dbPath });
    assertEquals(run.code, 0, run.stderr);
    const page = await newPage(browser);
    await page.goto(run.stdout.trim());
    const header = () => page.$eval("#scope", (e) => e.textContent);
    await waitFor("the header to name the process", header, {
      until: (text) =>
        text === `link for calc (#${live}) · in the list of every client's processes`,
    });
    await page.waitForSelector("#view:not([hidden])");
    assertMatch(await page.$eval("#facts", (e) => e.textContent ?? ""), new RegExp(`^#${live} `));
    await terminalUntil(page, ">>>", (text) => text.includes(">>>"));
    await screenshot(page, "named");

    // A name the list does not hold: the header says so, and nothing is chosen for the person.
    const unknown = new URL(run.stdout.trim());
    unknown.searchParams.delete("id");
    unknown.searchParams.set("name", "nosuch");
    const other = await newPage(browser);
    await other.goto(unknown.href);
    await waitFor(
      "the header to say there is none",
      () => other.$eval("#scope", (e) => e.textContent),
      {
        until: (text) => text === "no process nosuch here · every client's processes",
      },
    );
    assertMatch(await other.$eval("#choose", (e) => e.textContent ?? ""), /^No process nosuch in/);
    assertEquals(await other.$eval("#view", (e) => e.hasAttribute("hidden")), true);
  },
);
