/**
 * Secrets: a `getpass` prompt answered each way (typed as content at the
 * prompt, `secret`, `secret_env`; `secret_prompt` has secret_prompt_test.ts),
 * a secret refused at a shell prompt unless forced, env values, and deleted
 * records. After each, every byte the server wrote (its database, journal,
 * registry, the home of its programs, stderr at debug level and the log
 * notifications) is searched for the secret: it must not be there.
 */
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Portal, type Rec } from "../../dev/portal_client.ts";
import { waitFor } from "../../dev/wait.ts";
import { SECRET_MAX_CHARS } from "../../src/limits.ts";
import { Secrets } from "../../src/core/input/secrets.ts";
import { asksForSecret } from "../../src/core/input/password_prompt.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { posixTest } from "../helpers/platform.ts";
import {
  assertAnswered,
  assertNoTrace,
  filesHolding,
  getpass,
  loggingPortal,
  newSecret,
} from "../helpers/secrets.ts";

posixTest("(a) typed as content at a getpass prompt: stored as one [secret]", async () => {
  const { portal, heard } = await loggingPortal();
  await using _ = portal;
  const secret = newSecret();
  const id = await getpass(portal);
  const reply = await portal.call("process_write", { id, content: `${secret}\n` });
  await assertAnswered(portal, id, reply, secret);
  // From then on it is a secret of the process: typed again in the clear, it is masked too.
  const again = await portal.call("process_write", { id, content: `${secret}\n`, wait: "exit" });
  assertEquals(again.output, "[secret]\n");
  const stdin = await portal.call("process_read", { id, source: "stdin", duration: 60_000 });
  // The line end was typed as Enter, as a terminal sends it.
  assertEquals(stdin.records.at(-1).content, "[secret]\r");
  await assertNoTrace(portal, heard, [secret]);
}, { only: "linux" });

posixTest("(b) secret: typed, never stored or returned; a split print is caught", async () => {
  const { portal, heard } = await loggingPortal();
  await using _ = portal;
  const secret = newSecret();
  const id = await getpass(portal);
  const reply = await portal.call("process_write", { id, secret, keys: ["Enter"] });
  assertEquals(reply.bytes_written, secret.length + 1);
  await assertAnswered(portal, id, reply, secret);
  await assertNoTrace(portal, heard, [secret]);
}, { only: "linux" });

posixTest(
  "(b) a secret printed in two pieces stays whole while a wait watches the last line",
  async () => {
    await using portal = await Portal.start();
    const secret = newSecret();
    // With a prompt given, every check of the wait reads the last line: it must not let out
    // the start of the secret held back after the first piece.
    const { id } = await portal.call("process_start", {
      command: "sh",
      args: [
        "-c",
        'read -r p; printf "half %.5s" "$p"; sleep 0.3; printf "%s end\\n" "${p#?????}"; read -r x',
      ],
      prompt: "^$",
    });
    const reply = await portal.call("process_write", { id, secret, keys: ["Enter"] });
    assertEquals([reply.reason, reply.output], ["ready", "half [secret] end\n"]);
  },
);

/**
 * A {@link loggingPortal} given two variables the person marked secret: one by
 * its prefix (PORTAL_SECRET_API), one listed in PORTAL_SECRET_ENV
 * (MY_DB_PASS); `more` variables besides.
 */
async function markedSecrets(more: Record<string, string>) {
  const [prefixed, listed] = [newSecret(), newSecret()];
  const env = {
    PORTAL_SECRET_API: prefixed,
    PORTAL_SECRET_ENV: "OTHER_NAME, MY_DB_PASS",
    MY_DB_PASS: listed,
    ...more,
  };
  return { ...await loggingPortal({ env }), prefixed, listed };
}

posixTest(
  "(b) secret_env: a variable the person marked secret, which the model only names",
  async () => {
    const unmarked = newSecret();
    const { portal, heard, prefixed, listed } = await markedSecrets({ NOT_MARKED_PASS: unmarked });
    await using _ = portal;
    const id = await getpass(portal);
    // A variable the person did not mark is refused, whether it exists or not; a value passed
    // by mistake as the name is not echoed.
    for (const name of ["NOT_MARKED_PASS", "HOME", "PORTAL_TOKEN", "PORTAL_SECRET_ENV", listed]) {
      const refused = await portal.fail("process_write", { id, secret_env: name });
      assertMatch(refused, /^secret_env may name only a variable the person marked secret/);
      assertMatch(refused, /starts with PORTAL_SECRET_, or one listed in PORTAL_SECRET_ENV/);
      assert(!refused.includes(listed), refused);
    }
    const missing = await portal.fail("process_write", { id, secret_env: "PORTAL_SECRET_NONE" });
    assertMatch(missing, /no environment variable of the name given as secret_env/);
    const reply = await portal.call("process_write", {
      id,
      secret_env: "PORTAL_SECRET_API",
      keys: ["Enter"],
    });
    await assertAnswered(portal, id, reply, prefixed);
    // A name PORTAL_SECRET_ENV lists works the same.
    const second = await getpass(portal);
    const typed = await portal.call("process_write", {
      id: second,
      secret_env: "MY_DB_PASS",
      keys: ["Enter"],
    });
    await assertAnswered(portal, second, typed, listed);
    await assertNoTrace(portal, heard, [prefixed, listed, unmarked]);
  },
  { only: "linux" },
);

/** Every environment variable `pid` was started with (Linux), by name. */
function startEnvironment(text: string): Record<string, string> {
  return Object.fromEntries(
    text.split("\0").filter((entry) => entry.includes("=")).map((entry) => {
      const equals = entry.indexOf("=");
      return [entry.slice(0, equals), entry.slice(equals + 1)];
    }),
  );
}

posixTest(
  "(g) no program sees a secret or Portal's configuration: not in its env, not in the server's",
  async () => {
    const token = newSecret();
    const { portal, heard, prefixed, listed } = await markedSecrets({
      PORTAL_TOKEN: token,
      PLAIN_VARIABLE: "visible",
    });
    await using _ = portal;
    const server = portal.transport.pid!;
    // What each program sees: its own environment, and the one the server was started with.
    const script = `env; printf '\\n---\\n'; cat /proc/${server}/environ`;
    for (const pty of [false, true]) {
      const { id } = await portal.call("process_start", {
        command: "sh",
        args: ["-c", script],
        pty,
        env: { GIVEN: "by the start" },
      });
      await portal.waitExit(id);
      const records = await portal.call("process_read", {
        id,
        source: "stdout",
        duration: 60_000,
        encoding: "base64",
      });
      const bytes: string = records.records.map((r: Rec) => atob(r.content)).join("");
      const [own, started] = bytes.replaceAll("\r", "").split("\n---\n");
      const names = own.split("\n").map((line) => line.split("=")[0]);
      const what = `pty ${pty}`;
      assert(names.includes("PLAIN_VARIABLE") && names.includes("GIVEN"), `${what}: ${names}`);
      assertEquals(names.filter((n) => n.startsWith("PORTAL_") || n === "MY_DB_PASS"), [], what);
      // The server's own start environment shows the secrets' names with empty values.
      const serverEnv = startEnvironment(started);
      assertEquals(serverEnv.PLAIN_VARIABLE, "visible", what);
      for (const name of ["PORTAL_SECRET_API", "MY_DB_PASS", "PORTAL_TOKEN"]) {
        assertEquals(serverEnv[name], "", `${what}: ${name} in /proc/${server}/environ`);
      }
      for (const secret of [prefixed, listed, token]) assert(!bytes.includes(secret), what);
    }
    // The server still has the values: secret_env types them.
    const id = await getpass(portal);
    const reply = await portal.call("process_write", {
      id,
      secret_env: "PORTAL_SECRET_API",
      keys: ["Enter"],
    });
    await assertAnswered(portal, id, reply, prefixed);
    await assertNoTrace(portal, heard, [prefixed, listed]);
  },
  { only: "linux" },
);

posixTest("(d) a secret at a shell prompt is refused unless forced", async () => {
  const { portal, heard } = await loggingPortal({ capabilities: { elicitation: { form: {} } } });
  await using _ = portal;
  const secret = newSecret();
  let asked = 0;
  portal.client.setRequestHandler(ElicitRequestSchema, () => {
    asked++;
    return { action: "accept", content: { secret } };
  });
  const { id } = await portal.startBash({ HISTFILE: "" });
  for (const way of [{ secret }, { secret_prompt: "Password" }]) {
    const refused = await portal.fail("process_write", { id, ...way, keys: ["Enter"] });
    assertMatch(refused, /not at a password prompt .* Nothing was typed\. .* force: true/s);
  }
  assertEquals(asked, 0, "the person was asked although the secret would be refused");
  assertEquals((await portal.call("process_inspect", { id })).stdin_count, 0);
  // A value too long is refused without being quoted.
  const long = await portal.fail("process_write", {
    id,
    secret: secret + "x".repeat(SECRET_MAX_CHARS),
  });
  assert(!long.includes(secret), long);
  // Forced: typed, and the shell's echo of it is redacted.
  const forced = await portal.call("process_write", {
    id,
    content: "echo ",
    secret,
    keys: ["Enter"],
    force: true,
  });
  assertEquals(forced.output, "echo [secret]\n[secret]\nREADY$ ");
  // Typed later in the clear, it is still kept out of the records.
  const plain = await portal.call("process_write", { id, content: `echo ${secret}\n` });
  assertEquals(plain.output, "echo [secret]\n[secret]\nREADY$ ");
  const stdin = await portal.call("process_read", { id, source: "stdin", duration: 60_000 });
  assertEquals(stdin.records.map((r: Rec) => r.content), [
    "echo [secret]\r",
    "echo [secret]\r",
  ]);
  await assertNoTrace(portal, heard, [secret]);
});

posixTest("(f) env values are not stored: process_inspect names them only", async () => {
  const token = newSecret();
  const { portal, heard } = await loggingPortal();
  await using _ = portal;
  const { id } = await portal.call("process_start", {
    command: "sh",
    args: ["-c", 'read x; echo "${API_TOKEN:+token set}"'],
    env: { API_TOKEN: token, MODE: "test" },
  });
  const reply = await portal.call("process_write", { id, content: "go\n", wait: "exit" });
  assertEquals(reply.output, "token set\n");
  const info = await portal.call("process_inspect", { id });
  assertEquals(info.env, ["API_TOKEN", "MODE"]);
  assert(!JSON.stringify(await portal.call("process_list")).includes(token));
  await assertNoTrace(portal, heard, [token]);
});

posixTest("(e) process_clear and process_cleanup leave no text of the records behind", async () => {
  await using portal = await Portal.start();
  // The marker is made by the program, so no argument (stored with the process) holds it.
  const script = "m = 'ZQ' + 'X' + '-' * 3\n" +
    "print('\\n'.join(m + str(i) for i in range(2000)))\n" +
    "print(m * 30000)\n" +
    "input()";
  const marker = "ZQX---";
  const files = () => filesHolding(portal.dir, marker);
  // Each has printed everything once it waits for input.
  const start = () =>
    portal.call("process_start", { command: "python3", args: ["-c", script], wait: "ready" });
  const first = (await start()).id;
  const second = (await start()).id;
  // Committed within 200 ms: the files hold the marker (the search works).
  await waitFor("the marker in the database", files, { until: (f) => f.length > 0 });
  await portal.call("process_clear", { id: first });
  await portal.call("process_write", { id: second, content: "\n", wait: "exit" });
  await portal.call("process_kill", { id: first });
  await portal.call("process_cleanup", { id: second });
  assertEquals(await files(), []);
  // Once the server is gone too; its files are its user's alone.
  await portal.client.close();
  assertEquals(await files(), []);
  for (const name of ["records.db", "records.db-journal"]) {
    assertEquals(Deno.statSync(`${portal.dir}/${name}`).mode! & 0o777, 0o600, name);
  }
}, { only: "linux" });

Deno.test("the output filter: splits, overlaps, and a read between two chunks", () => {
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  const bytes = (s: string) => new TextEncoder().encode(s);
  const secrets = new Secrets();
  secrets.add("abcdef\nabXY");
  const pass = (...chunks: string[]) =>
    chunks.map((c) => text(secrets.redact("stdout", bytes(c)))).join("") +
    text(secrets.release("stdout"));
  // One secret across three chunks, and a chunk that is nothing but its start.
  assertEquals(pass("1 ab", "cd", "ef 2"), "1 [secret] 2");
  assertEquals(pass("x a", "b", "XY."), "x [secret].");
  // Where two could match, the earliest wins, then the longest.
  assertEquals(pass("abcdefabXYab"), "[secret][secret]ab");
  // A read between two chunks stores what was held; what follows is still caught.
  assertEquals(text(secrets.redact("stdout", bytes("> abc"))), "> ");
  assertEquals(text(secrets.release("stdout")), "abc");
  assertEquals(text(secrets.redact("stdout", bytes("def <"))), "[secret] <");
  // Lines typed at a password prompt: erase and kill apply; each completed line is a secret.
  const typed = new Secrets();
  assertEquals(typed.typed("wrong\x15pw1x\x7f", true), "[secret]");
  assertEquals(typed.typed("2\r", true), "\r");
  assertEquals(text(typed.scrub(bytes("pw12 pw1"))), "[secret] pw1");
  // A person's keys, one write each: one marker per entry, however long; a Ctrl+C drops the
  // line (no secret is made of it) and the next key begins a new entry.
  const keys = new Secrets();
  const record = (text: string, secret = true) =>
    [...text].map((key) => keys.typed(key, secret)).join("|");
  assertEquals(record("abc\x03de\r"), "[secret]|||\x03|[secret]||\r");
  assertEquals(text(keys.scrub(bytes("abc de"))), "abc [secret]");
  // Typing that is no longer secret (the prompt went away) ends the entry.
  assertEquals(record("xy"), "[secret]|");
  assertEquals(keys.typed("ls", false), "ls");
  assertEquals(record("z"), "[secret]");
});

Deno.test("a password prompt behind a relay: raw mode and a line that asks for one", () => {
  const raw = { echo: false, canonical: false };
  const asks = (line: string) => asksForSecret(raw, () => line);
  for (
    const prompt of [
      "Password: ",
      "[sudo] password for bob: ",
      "bob@db1.example.com's password: ",
      "Enter passphrase for key '/home/bob/.ssh/id_ed25519': ",
      "Enter password: ",
      "Password for user postgres: ",
      "Password for 'https://bob@git.example.com': ",
      "New password: ",
      "Retype new password: ",
      "Current password:",
      "Enter PIN for 'PIV Card Holder pin (PIV_II)': ",
      "Passwort: ",
      "Enter passcode:\x1b[0m ",
      "login ok\r\nPassword: ",
    ]
  ) assert(asks(prompt), prompt);
  for (
    const line of [
      "bob@db1:~$ ",
      ">>> ",
      "Password changed.",
      "Username: ",
      "Spinning: ",
      "Password: wrong\rbob@db1:~$ ",
      "",
    ]
  ) assert(!asks(line), line);
  // Echo on: what is typed is shown anyway; no modes (pipes, Windows): no prompt to tell.
  assertEquals(asksForSecret({ echo: true, canonical: false }, () => "Password: "), false);
  assertEquals(asksForSecret(null, () => "Password: "), false);
});
