/**
 * A secret is a secret whoever types it, behind a relay too: through a real
 * ssh to a throwaway sshd, a person answers a remote password prompt on the
 * watch page, key by key. ssh keeps this terminal raw (echo off, not
 * canonical), so only the last line tells it is a password prompt; what the
 * person typed reaches the far side, and nowhere else: not the agent's
 * replies (`person_input`, reads), not the records file, not the `.cast`.
 * One `[secret]` marks the entry, whatever its length. The agent's `secret`
 * goes to the same prompt without `force`: the same test decides both.
 */
import { sshdAvailable, startSshd } from "../dev/sshd.ts";
import type { Json } from "../dev/portal_client.ts";
import { tempDir } from "../dev/temp_dir.ts";
import { waitFor } from "../dev/wait.ts";
import { assert, assertEquals, assertMatch } from "./helpers/assert.ts";
import { browserTest, newPage, openBrowser, terminalUntil, typeOnPage } from "./helpers/browser.ts";
import { runCli } from "./helpers/cli.ts";
import { assertNoTrace, loggingPortal, newSecret, sha16 } from "./helpers/secrets.ts";

/** A remote password prompt: read without echo, then prove what came (a hash), never show it. */
const ASK = "read -rs -p 'Password: ' pw; echo; printf '%s' \"$pw\" | sha256sum | cut -c1-16\n";

Deno.test({
  name: "relay: a person's password at a remote prompt behind ssh is one [secret], nowhere else",
  ...browserTest,
  ignore: browserTest.ignore || Deno.build.os !== "linux" || !sshdAvailable(),
  async fn() {
    await using sshd = await startSshd();
    const { portal, heard } = await loggingPortal();
    await using _ = portal;
    await using browser = await openBrowser();
    await using dir = await tempDir("portal-relay-secret-");
    const typed = newSecret();
    const given = newSecret();

    const started = await portal.call("process_start", {
      command: "ssh",
      args: sshd.sshArgs,
      pty: true,
      wait: "ready",
      wait_ms: 20_000,
    });
    // ssh's own prompt: echo off in canonical mode, on this machine.
    assertEquals(started.state, "waiting_for_secret");
    const { id } = started;
    const login = await portal.call("process_write", {
      id,
      secret: sshd.password,
      keys: ["Enter"],
      wait_ms: 20_000,
    });
    assertMatch(login.output, /\$ $/);

    // The remote prompt: this terminal is raw, the far side hides what is typed.
    const asked = await portal.call("process_write", { id, content: ASK, wait_ms: 20_000 });
    assertMatch(asked.output, /Password: $/);
    assertEquals(asked.state, "waiting_for_secret");

    // The person answers it on the watch page, one key at a time.
    const page = await newPage(browser);
    await page.goto((await portal.call("process_watch", { id })).url);
    await terminalUntil(page, "the remote prompt", (text) => text.includes("Password:"));
    await page.click("#take");
    await page.waitForSelector("#give:not([hidden])");
    await typeOnPage(page, `${typed}\n`);
    const hash = await sha16(typed);
    await terminalUntil(page, "the far side's hash", (text) => text.includes(hash));
    await page.click("#give");
    await page.waitForSelector("#take:not([hidden])");

    const told = await portal.call("process_read_new", { id, wait: "ready", wait_ms: 20_000 });
    assertEquals(told.person_input, "[secret]\r");
    assertMatch(told.output, new RegExp(`^${hash}$`, "m"));

    // The agent's secret goes to the same kind of prompt without force.
    const again = await portal.call("process_write", { id, content: ASK, wait_ms: 20_000 });
    assertEquals(again.state, "waiting_for_secret");
    const answered = await portal.call("process_write", {
      id,
      secret: given,
      keys: ["Enter"],
      wait_ms: 20_000,
    });
    assertMatch(answered.output, new RegExp(`^${await sha16(given)}$`, "m"));
    // At the remote shell's prompt it is refused again.
    assertMatch(
      await portal.fail("process_write", { id, secret: given }),
      /not at a password prompt/,
    );

    // The records: one marker per entry (the login, the person's, the agent's), no lengths.
    const stdin = await portal.call("process_read", { id, source: "stdin", duration: 600_000 });
    const inputs = stdin.records.map((r: Json) => r.content);
    assertEquals(inputs, [
      "[secret]\r",
      ASK.replace("\n", "\r"),
      "[secret]",
      "\r",
      ASK.replace("\n", "\r"),
      "[secret]\r",
    ]);
    const all = await portal.call("process_read", { id, duration: 600_000, max_chars: 1_000_000 });
    const inspected = await portal.call("process_inspect", { id });
    for (const reply of [told, again, answered, all, inspected]) {
      const text = JSON.stringify(reply);
      assert(!text.includes(typed) && !text.includes(given), "a reply holds a password");
    }
    await portal.call("process_kill", { id });

    // The recording, from the records database.
    const cast = await waitFor("the export to hold the whole session", async () => {
      const run = await runCli(dir.path, ["export", String(id)], { PORTAL_DB_PATH: portal.dbPath });
      assertEquals(run.code, 0, run.stderr);
      return run.stdout;
    }, { until: (text) => text.includes('"m","killed') });
    assert(!cast.includes(typed) && !cast.includes(given), "the recording holds a password");
    const events = cast.trimEnd().split("\n").slice(1).map((line) => JSON.parse(line));
    const input = events.filter(([, type]) => type === "i").map(([, , data]) => data).join("");
    assertEquals(input.split("[secret]").length - 1, 3, input);
    // Nothing the server wrote holds either password: the database, its journal, stderr, logs.
    await assertNoTrace(portal, heard, [typed, given, sshd.password]);
  },
});
