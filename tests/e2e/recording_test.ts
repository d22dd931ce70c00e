/**
 * Recordings: a PTY process's records as an asciicast v2 file, from
 * `portal export ID|NAME` and from the watch page (download and replay), with
 * what a person typed at a password prompt left out.
 */
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { bashStart, type Json, type Portal } from "../../dev/portal_client.ts";
import { waitFor } from "../../dev/wait.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { runCli } from "../helpers/cli.ts";
import { sharedServer } from "../helpers/portal.ts";
import { posixTest } from "../helpers/platform.ts";
import {
  newPage,
  screenshot,
  sharedBrowser,
  terminalUntil,
  typeOnPage,
} from "../helpers/browser.ts";

const SECRET = "hunter2-typed-on-the-page";
const pageTest = sharedBrowser();
/** One server for the two tests: each looks at its own processes only. */
const server = sharedServer();

/** Parses a `.cast`: its header, and its events with times that never go back. */
function parseCast(text: string): { header: Json; events: [number, string, string][] } {
  const [first, ...rest] = text.trimEnd().split("\n");
  const header = JSON.parse(first);
  const events = rest.map((line) => JSON.parse(line));
  for (const [i, event] of events.entries()) {
    assert(Array.isArray(event) && event.length === 3, `event ${i}: ${JSON.stringify(event)}`);
    assert(typeof event[0] === "number" && typeof event[2] === "string");
    if (i > 0) assert(event[0] >= events[i - 1][0], `event ${i} goes back in time`);
  }
  return { header, events };
}

/** The stored output of process `id`, as bytes decoded once (what the output events must equal). */
async function storedOutput(portal: Portal, id: number): Promise<string> {
  const { records } = await portal.call("process_read", {
    id,
    source: "stdout",
    duration: 3_600_000,
    encoding: "base64",
    max_chars: 1_000_000,
  });
  const bytes = records.flatMap((r: { content: string }) =>
    [...atob(r.content)].map((c) => c.charCodeAt(0))
  );
  return new TextDecoder().decode(new Uint8Array(bytes));
}

pageTest(
  "recording: a python session with a getpass answered on the page, exported and replayed",
  async (browser) => {
    const portal = await server();
    await using dir = await tempDir("portal-export-");
    const id = await portal.spawn("python3", ["-q"], { pty: true, wait: "ready" });
    const page = await newPage(browser);
    await page.goto((await portal.call("process_watch", { id })).url);
    await portal.call("process_write", { id, content: "import getpass\n" });
    const asked = await portal.call("process_write", {
      id,
      content: 's = getpass.getpass("Password: ")\n',
    });
    assertEquals(asked.state, "waiting_for_secret");
    await terminalUntil(page, "the password prompt", (text) => text.includes("Password:"));
    // The person answers it, on the page.
    await page.click("#take");
    await page.waitForSelector("#give:not([hidden])");
    await typeOnPage(page, `${SECRET}\n`);
    await terminalUntil(page, "python's prompt again", (text) => /Password:\n>>>$/m.test(text));
    await page.click("#give");
    await page.waitForSelector("#take:not([hidden])");
    const told = await portal.call("process_write", { id, content: "print(len(s), 'chars')\n" });
    assertMatch(told.output, new RegExp(`^${SECRET.length} chars$`, "m"));
    // One marker for the whole entry, typed key by key: no length, no rhythm.
    assertEquals(told.person_input, "[secret]\r");
    assert(!told.person_input.includes(SECRET));
    await portal.call("process_write", { id, content: "print('\\u00e9t\\u00e9 \\u2603')\n" });
    await portal.call("process_kill", { id });

    // portal export, from the records database (what is committed: within 200 ms).
    const stored = await storedOutput(portal, id);
    const exported = await waitFor("the export to hold the whole session", async () => {
      const run = await runCli(dir.path, ["export", String(id)], { PORTAL_DB_PATH: portal.dbPath });
      assertEquals(run.code, 0, run.stderr);
      return run.stdout;
    }, { until: (text) => text.includes('"m","killed') });
    assert(!exported.includes(SECRET), "the secret is not in the recording");
    const { header, events } = parseCast(exported);
    assertEquals([header.version, header.width, header.height], [2, 80, 24]);
    assertMatch(header.command, /^python3 -q$/);
    const output = events.filter(([, type]) => type === "o").map(([, , data]) => data).join("");
    assertEquals(output, stored);
    assertMatch(output, /été ☃/);
    const input = events.filter(([, type]) => type === "i").map(([, , data]) => data).join("");
    assertMatch(input, /getpass\.getpass/);
    assertEquals(input.split("[secret]").length, 2, input);
    assert(!/\[secret: \d/.test(input), input);
    assertEquals(events.at(-1)?.[1], "m");
    assertMatch(events.at(-1)![2], /^killed by signal SIG/);
    // Output events come at their real times: the session took a while, the first came early.
    assert(events[0][0] < events.at(-1)![0]);

    // The page's download is the same recording, saved under its name; replayed at max speed
    // it draws the session.
    const cdp = await page.createCDPSession();
    await cdp.send("Browser.setDownloadBehavior", {
      behavior: "allow",
      downloadPath: dir.path,
      browserContextId: browser.id, // The test's own context, not the browser's default one.
    });
    await page.click("#download");
    const saved = `${dir.path}/portal-${id}-python3.cast`;
    const read = () => Deno.readTextFile(saved).catch(() => "not there (yet)");
    await waitFor("the page's download", read, { until: (text) => text === exported });
    await page.waitForSelector("#replay:not([hidden])");
    await page.click('#replay button[data-speed="max"]');
    await page.waitForSelector("#notice[data-kind=flash]");
    await waitFor("the replay to finish", () => page.$eval("#notice", (e) => e.textContent), {
      until: (text) => text === "Replay finished.",
    });
    await terminalUntil(
      page,
      "the replayed session",
      (text) => text.includes(`${SECRET.length} chars`),
    );
    await screenshot(page, "replay");
  },
);

posixTest(
  "portal export: a clear line and exit 1 for an unknown id or a pipe process",
  async () => {
    const portal = await server();
    await using dir = await tempDir("portal-export-");
    const pipe = await portal.spawn("echo", ["on pipes"], { wait: "exit" });
    const env = { PORTAL_DB_PATH: portal.dbPath };
    const missing = await runCli(dir.path, ["export", "99"], env);
    assertEquals([missing.code, missing.stdout], [1, ""]);
    assertMatch(missing.stderr, /^portal: no process has the id or name "99" in /);
    const piped = await waitFor(
      "the pipe process's row",
      () => runCli(dir.path, ["export", String(pipe)], env),
      {
        until: (run) => !run.stderr.includes("no process"),
      },
    );
    assertEquals(piped.code, 1);
    assertMatch(piped.stderr, /ran on pipes/);
    const usage = await runCli(dir.path, ["export"], env);
    assertEquals(usage.code, 2);
    assertMatch(usage.stderr, /export takes one process id/);
  },
  { shares: true },
);

posixTest(
  "portal export leaves the shell integration marks and their key out of a recording",
  async () => {
    const portal = await server();
    await using dir = await tempDir("portal-export-");
    const { id } = await portal.call("process_start", { ...bashStart(), wait: "ready" });
    const ran = await portal.call("process_write", { id, content: "echo marked\n" });
    assertEquals(ran.command?.exit_code, 0);
    await portal.call("process_kill", { id });
    // The records hold every byte: the marks and the key they are signed with.
    const stored = await storedOutput(portal, id);
    // deno-lint-ignore no-control-regex
    const key = stored.match(/\x1b\]133;A;k=(\w+)/)?.[1];
    assert(key, JSON.stringify(stored));
    const exported = await waitFor("the export to hold the whole session", async () => {
      const run = await runCli(dir.path, ["export", String(id)], { PORTAL_DB_PATH: portal.dbPath });
      assertEquals(run.code, 0, run.stderr);
      return run.stdout;
    }, { until: (text) => text.includes('"m","killed') });
    assert(!exported.includes(key), "the key is not in the recording");
    const { events } = parseCast(exported);
    const output = events.filter(([, type]) => type === "o").map(([, , data]) => data).join("");
    assert(!output.includes("\x1b]133;") && !output.includes("\x1b]633;"), JSON.stringify(output));
    // deno-lint-ignore no-control-regex
    assertEquals(output, stored.replace(/\x1b\](?:133|633);[^\x07\x1b]*(?:\x07|\x1b\\)/g, ""));
    assertMatch(output, /^marked\r$/m);
  },
  { shares: true },
);
