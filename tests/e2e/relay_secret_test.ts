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
import { sshdAvailable, startSshd } from "../../dev/sshd.ts";
import { type Json, MAIN, Portal, serverEnv } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import {
  browserTest,
  newPage,
  openBrowser,
  terminalUntil,
  typeOnPage,
} from "../helpers/browser.ts";
import { runCli } from "../helpers/cli.ts";
import { Pane } from "../helpers/pane.ts";
import { sshLogin } from "../helpers/ssh_login.ts";
import { hostDir } from "../helpers/portal.ts";
import {
  assertNoTrace,
  filesHolding,
  loggingPortal,
  newSecret,
  sha16,
} from "../helpers/secrets.ts";

/** A remote password prompt: read without echo, then prove what came (a hash), never show it. */
const ASK = "read -rs -p 'Password: ' pw; echo; printf '%s' \"$pw\" | sha256sum | cut -c1-16\n";
/** How the stdin records show {@link ASK}: its line end typed as Enter. */
const ASKED = ASK.replace("\n", "\r");

/** The agent runs {@link ASK}: this terminal is raw, the far side hides what is typed. */
async function askRemotely(portal: Portal, id: number): Promise<Json> {
  const asked = await portal.call("process_write", { id, content: ASK, wait_ms: 20_000 });
  assertMatch(asked.output, /Password: $/);
  assertEquals(asked.state, "waiting_for_secret");
  return asked;
}

/** The input events of `id`'s recording (`portal export`, from the records database). */
async function recordedInput(portal: Portal, id: number, secrets: string[]): Promise<string> {
  await using dir = await tempDir("portal-relay-secret-");
  const cast = await waitFor("the export to hold the whole session", async () => {
    const run = await runCli(dir.path, ["export", String(id)], { PORTAL_DB_PATH: portal.dbPath });
    assertEquals(run.code, 0, run.stderr);
    return run.stdout;
  }, { until: (text) => text.includes('"m","killed') });
  for (const secret of secrets) assert(!cast.includes(secret), "the recording holds a secret");
  const events = cast.trimEnd().split("\n").slice(1).map((line) => JSON.parse(line));
  return events.filter(([, type]) => type === "i").map(([, , data]) => data).join("");
}

Deno.test({
  name: "relay: a person's password at a remote prompt behind ssh is one [secret], nowhere else",
  ...browserTest,
  ignore: browserTest.ignore || Deno.build.os !== "linux" || !sshdAvailable(),
  async fn() {
    await using sshd = await startSshd();
    const { portal, heard } = await loggingPortal();
    await using _ = portal;
    await using browser = await openBrowser();
    const typed = newSecret();
    const given = newSecret();

    const id = await sshLogin(portal, sshd);
    await askRemotely(portal, id);

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
    const again = await askRemotely(portal, id);
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
    assertEquals(inputs, ["[secret]\r", ASKED, "[secret]", "\r", ASKED, "[secret]\r"]);
    const all = await portal.call("process_read", { id, duration: 600_000, max_chars: 1_000_000 });
    const inspected = await portal.call("process_inspect", { id });
    for (const reply of [told, again, answered, all, inspected]) {
      const text = JSON.stringify(reply);
      assert(!text.includes(typed) && !text.includes(given), "a reply holds a password");
    }
    await portal.call("process_kill", { id });

    const input = await recordedInput(portal, id, [typed, given]);
    assertEquals(input.split("[secret]").length - 1, 3, input);
    // Nothing the server wrote holds either password: the database, its journal, stderr, logs.
    await assertNoTrace(portal, heard, [typed, given, sshd.password]);
  },
});

Deno.test({
  name: "relay: a password typed key by key through portal attach behind ssh is one [secret]",
  ignore: Deno.build.os !== "linux" || !sshdAvailable(),
  async fn() {
    await using sshd = await startSshd();
    await using dir = await hostDir();
    await using portal = await Portal.start({ dir: dir.path });
    const typed = newSecret();
    const id = await sshLogin(portal, sshd);
    await askRemotely(portal, id);

    // The person, at their own terminal, attaches and answers the remote prompt.
    const env = await serverEnv(dir.path);
    await using pane = await Pane.open(
      dir.path,
      [Deno.execPath(), "run", "-A", MAIN, "attach", String(id)],
      env,
    );
    await pane.until("the remote prompt", (text) => text.includes("Password:"));
    for (const key of typed) await pane.keys("-l", key);
    await pane.keys("Enter");
    const hash = await sha16(typed);
    await pane.until("the far side's hash", (text) => text.includes(hash));
    await pane.keys("C-]");
    await pane.until("the detach", (text) => text.includes("[exit "));

    const stdin = await portal.call("process_read", { id, source: "stdin", duration: 600_000 });
    assertEquals(stdin.records.map((r: Json) => r.content), [
      "[secret]\r",
      ASKED,
      "[secret]",
      "\r",
    ]);
    const replies = [
      await portal.call("process_read_new", { id, wait: "ready", wait_ms: 20_000 }),
      await portal.call("process_read", { id, duration: 600_000, max_chars: 1_000_000 }),
      await portal.call("process_screen", { id }),
    ];
    assertMatch(replies[0].output, new RegExp(`^${hash}$`, "m"));
    for (const reply of replies) assert(!JSON.stringify(reply).includes(typed), "a reply holds it");
    await portal.call("process_kill", { id });
    const input = await recordedInput(portal, id, [typed]);
    assertEquals(input.split("[secret]").length - 1, 2, input);
    // Not in the records database or its journal, nor any other file of the host's.
    assertEquals(await filesHolding(dir.path, typed), []);
  },
});
