/**
 * Secrets and what the server leaves on disk: env values, and deleted
 * records. After each, every byte the server wrote (its database, journal,
 * registry, the home of its programs, stderr at debug level and the log
 * notifications) is searched for the secret: it must not be there.
 */
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { type Json, Portal, type StartOptions } from "../dev/portal_client.ts";
import { waitFor } from "../dev/wait.ts";
import { assert, assertEquals } from "./helpers/assert.ts";
import { posixTest } from "./helpers/platform.ts";

/** A value no program or file has by chance. */
function newSecret(): string {
  return `pw-${crypto.randomUUID().slice(0, 13)}-Zq`;
}

/** A server that logs everything (stderr and the client at debug), and what it logged. */
async function loggingPortal(options: StartOptions = {}): Promise<{
  portal: Portal;
  heard: string[];
}> {
  const portal = await Portal.start({
    ...options,
    captureStderr: true,
    args: ["--log-level", "debug"],
  });
  const heard: string[] = [];
  portal.client.setNotificationHandler(LoggingMessageNotificationSchema, (n: Json) => {
    heard.push(JSON.stringify(n.params));
  });
  await portal.client.setLoggingLevel("debug");
  return { portal, heard };
}

/** Where `needle` occurs among the files under `dir` (recursively). */
async function filesHolding(dir: string, needle: string): Promise<string[]> {
  const bytes = new TextEncoder().encode(needle);
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) found.push(...await filesHolding(path, needle));
    else if (entry.isFile && indexOf(await Deno.readFile(path), bytes) >= 0) found.push(path);
  }
  return found;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  for (let at = haystack.indexOf(needle[0]); at >= 0; at = haystack.indexOf(needle[0], at + 1)) {
    let i = 1;
    while (i < needle.length && haystack[at + i] === needle[i]) i++;
    if (i === needle.length) return at;
  }
  return -1;
}

/**
 * Stops the server (it commits and closes its files), then asserts that none
 * of `secrets` is in anything it wrote; the directory goes with `portal`.
 */
async function assertNoTrace(portal: Portal, heard: string[], secrets: string[]): Promise<void> {
  await portal.client.close();
  const files = [...Deno.readDirSync(portal.dir)].map((e) => e.name);
  assert(files.includes("records.db"), `the database is there: ${files}`);
  assert(portal.stderr.includes("[debug] tools: process_write"), "stderr logged at debug");
  assert(heard.some((h) => h.includes("process_write")), "the client heard the calls");
  for (const secret of secrets) {
    assertEquals(await filesHolding(portal.dir, secret), [], "files holding the secret");
    assert(!portal.stderr.includes(secret), "the secret is on stderr");
    assert(!heard.some((h) => h.includes(secret)), "the secret is in a log notification");
  }
}

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
});
