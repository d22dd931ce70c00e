/**
 * `secret_prompt`: the person is asked through elicitation. A client with URL
 * mode gets a page of Portal's own, which these tests visit as a browser
 * would (the form, its headers, one POST); a client with form mode only gets
 * a form; a client with neither gets an error. Declines, cancellation and a
 * second answer type nothing, and the secret is nowhere in what the server
 * wrote. Over Streamable HTTP too.
 */
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type {
  ElicitationCompleteNotification,
  ElicitRequest,
  ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { callTool, type Portal } from "../../dev/portal_client.ts";
import { waitFor } from "../../dev/wait.ts";
import { withTimeout } from "../../src/async.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { HttpPortal } from "../helpers/http_portal.ts";
import { posixTest } from "../helpers/platform.ts";
import { linuxTest } from "../helpers/portal.ts";
import {
  assertAnswered,
  assertNoTrace,
  getpass,
  loggingPortal,
  newSecret,
} from "../helpers/secrets.ts";

type Asked = ElicitRequest["params"];

/** Records what the client is asked, and answers with `answer(params)`. */
function onElicit(
  portal: Portal,
  answer: (params: Asked) => ElicitResult | Promise<ElicitResult>,
): Asked[] {
  const asked: Asked[] = [];
  portal.client.setRequestHandler(ElicitRequestSchema, (request: ElicitRequest) => {
    asked.push(request.params);
    return answer(request.params);
  });
  return asked;
}

/** What a browser gets from `url`: the page must be the form, and load nothing. */
async function visit(url: string, label: string): Promise<void> {
  const response = await fetch(url);
  const page = await response.text();
  assertEquals(response.status, 200);
  const headers = Object.fromEntries(response.headers);
  assertEquals(headers["content-type"], "text/html; charset=utf-8");
  assertEquals(headers["cache-control"], "no-store");
  assertEquals(headers["referrer-policy"], "no-referrer");
  assertEquals(headers["x-frame-options"], "DENY");
  assertMatch(headers["content-security-policy"], /^default-src 'none'; form-action 'self';/);
  assertStringIncludes(page, `<label>${label}<br><input type="password" name="secret"`);
  assertMatch(page, /<form method="post">/);
  assert(!/\b(src|href|action)=/.test(page), `the page loads or posts elsewhere: ${page}`);
}

/**
 * Posts `secret` as the page's form does, from `origin` (a browser's Origin
 * header; none, as a non-browser client sends); returns the status and the
 * text of the answer.
 */
async function post(url: string, secret: string, origin?: string): Promise<[number, string]> {
  const response = await fetch(url, {
    method: "POST",
    body: new URLSearchParams({ secret }),
    headers: origin === undefined ? {} : { origin },
  });
  return [response.status, await response.text()];
}

/** The status line a request naming the server `host` gets (no client lets one set Host). */
async function statusWithHost(url: URL, host: string): Promise<string> {
  const connection = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  await connection.write(new TextEncoder().encode(
    `GET ${url.pathname} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
  ));
  const answer = new Response(connection.readable).text();
  return (await withTimeout(answer, 10_000, "no answer in 10 s")).split("\r\n")[0];
}

posixTest("(c) secret_prompt by URL: the person enters it on Portal's page", async () => {
  const secret = newSecret();
  const { portal, heard } = await loggingPortal({ capabilities: { elicitation: { url: {} } } });
  await using _ = portal;
  const completed: string[] = [];
  portal.client.setNotificationHandler(
    ElicitationCompleteNotificationSchema,
    (n: ElicitationCompleteNotification) => {
      completed.push(n.params.elicitationId);
    },
  );
  // The client opens the page once the person consents, and says so at once.
  const asked = onElicit(portal, () => ({ action: "accept" }));
  const id = await getpass(portal);
  const label = "Password for db1";
  const call = portal.call("process_write", { id, secret_prompt: label, keys: ["Enter"] });
  const question = await waitFor("the question", () => asked[0]);
  assert(question.mode === "url");
  assertStringIncludes(question.message, label);
  assertStringIncludes(question.message, "neither the agent nor this client sees it");
  const url = new URL(question.url);
  assertEquals([url.protocol, url.hostname, url.search], ["http:", "127.0.0.1", ""]);
  assert(url.pathname.length > 40, `a guessable path: ${url.pathname}`);
  const wrong = await fetch(new URL("/" + "A".repeat(43), url));
  assertEquals([wrong.status, await wrong.body?.cancel()], [404, undefined]);
  assertEquals(await statusWithHost(url, "evil.example"), "HTTP/1.1 403 Forbidden");
  // A form posted from another page (another port is another page) takes nothing.
  for (const origin of ["http://evil.example", `http://127.0.0.1:${Number(url.port) + 1}`]) {
    const [foreign, why] = await post(question.url, newSecret(), origin);
    assertEquals([foreign, why.includes("nothing was received")], [403, true], origin);
  }
  // The browser: the form, then the answer, from the page itself.
  await visit(question.url, label);
  const [status, text] = await post(question.url, secret, url.origin);
  assertEquals(status, 200);
  assertStringIncludes(text, "You can close this tab.");
  const reply = await call;
  assertEquals(asked.length, 1);
  await waitFor("the completion notification", () => completed, { until: (c) => c.length > 0 });
  assertEquals(completed, [question.elicitationId]);
  await assertAnswered(portal, id, reply, secret);
  // The page took its one answer and is gone: a second one reaches nothing.
  const again = await post(question.url, newSecret()).then(() => "answered", (e: Error) => e.name);
  assertEquals(again, "TypeError");
  await assertNoTrace(portal, heard, [secret]);
}, { only: "linux" });

posixTest("(c) secret_prompt: URL mode before form; a decline types nothing", async () => {
  const { portal } = await loggingPortal({
    capabilities: { elicitation: { form: {}, url: {} } },
  });
  await using _ = portal;
  const asked = onElicit(portal, () => ({ action: "decline" }));
  const id = await getpass(portal);
  const declined = await portal.fail("process_write", { id, secret_prompt: "Password for db1" });
  assertMatch(declined, /did not give the secret \(decline\); nothing was typed/);
  assertEquals(asked.map((a) => a.mode), ["url"]);
  // The page is gone with the question.
  const url = (asked[0] as { url: string }).url;
  assertEquals(await fetch(url).then(() => "served", (e: Error) => e.name), "TypeError");
  assertEquals((await portal.call("process_inspect", { id })).stdin_count, 0);
}, { only: "linux" });

posixTest("(c) secret_prompt by URL: a cancelled call takes the page down", async () => {
  const { portal } = await loggingPortal({ capabilities: { elicitation: { url: {} } } });
  await using _ = portal;
  const secret = newSecret();
  // First the person consents, but has not entered anything when the agent cancels; then they
  // answer on the page before the client has said they consented.
  let browse = false;
  const asked = onElicit(portal, async (params) => {
    assert(params.mode === "url");
    if (browse) assertEquals((await post(params.url, secret))[0], 200);
    return { action: "accept" };
  });
  const id = await getpass(portal);
  const cancel = new AbortController();
  const call = portal.client.callTool(
    { name: "process_write", arguments: { id, secret_prompt: "Password" } },
    undefined,
    { signal: cancel.signal },
  ).then(() => "finished", () => "cancelled");
  const question = await waitFor("the question", () => asked[0]);
  assert(question.mode === "url");
  assertEquals(await fetch(question.url).then((r) => r.body?.cancel()), undefined);
  cancel.abort();
  assertEquals(await call, "cancelled");
  const stopped = () => fetch(question.url).then((r) => (r.body?.cancel(), false), () => true);
  await waitFor("the page to stop", stopped);
  assertEquals((await portal.call("process_inspect", { id })).stdin_count, 0);
  browse = true;
  const reply = await portal.call("process_write", {
    id,
    secret_prompt: "Password",
    keys: ["Enter"],
  });
  assertEquals(asked.length, 2);
  await assertAnswered(portal, id, reply, secret);
}, { only: "linux" });

posixTest("(c) secret_prompt in a form, for a client without URL mode", async () => {
  const secret = newSecret();
  const { portal, heard } = await loggingPortal({ capabilities: { elicitation: { form: {} } } });
  await using _ = portal;
  let answer: "accept" | "decline" = "decline";
  const asked = onElicit(portal, () => ({ action: answer, content: { secret } }));
  const id = await getpass(portal);
  const declined = await portal.fail("process_write", { id, secret_prompt: "Password for db1" });
  assertMatch(declined, /did not give the secret \(decline\); nothing was typed/);
  answer = "accept";
  const reply = await portal.call("process_write", {
    id,
    secret_prompt: "Password for db1",
    keys: ["Enter"],
  });
  assertEquals(asked.map((a) => a.mode), ["form", "form"]);
  assertStringIncludes(asked[1].message, "Password for db1");
  assertStringIncludes(asked[1].message, "The agent does not see it");
  await assertAnswered(portal, id, reply, secret);
  await assertNoTrace(portal, heard, [secret]);
}, { only: "linux" });

linuxTest("(c) secret_prompt without elicitation: a clear error, nothing typed", async (portal) => {
  const id = await getpass(portal);
  const error = await portal.fail("process_write", { id, secret_prompt: "Password" });
  assertMatch(error, /needs an MCP client that can ask the person \(elicitation\)/);
  assertMatch(error, /Use secret_env instead/);
  assertEquals((await portal.call("process_inspect", { id })).stdin_count, 0);
});

posixTest(
  "(c) secret_prompt by URL over HTTP: the question, the page, the completion",
  async () => {
    await using portal = await HttpPortal.start();
    const client = await portal.connect({ capabilities: { elicitation: { url: {} } } });
    const secret = newSecret();
    const completed: string[] = [];
    client.setNotificationHandler(
      ElicitationCompleteNotificationSchema,
      (n: ElicitationCompleteNotification) => {
        completed.push(n.params.elicitationId);
      },
    );
    const asked: Asked[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request: ElicitRequest) => {
      asked.push(request.params);
      assert(request.params.mode === "url");
      assertEquals((await post(request.params.url, secret))[0], 200);
      return { action: "accept" };
    });
    const { id } = await callTool(client, "process_start", {
      command: "sh",
      args: ["-c", 'read -r p; echo "got ${#p} chars"'],
    });
    const reply = await callTool(client, "process_write", {
      id,
      secret_prompt: "Token",
      keys: ["Enter"],
      wait: "exit",
    });
    assertEquals(reply.output, `got ${secret.length} chars\n`);
    assertEquals(completed, asked.map((a) => (a as { elicitationId: string }).elicitationId));
    assert(!portal.stderr.includes(secret) && !portal.stdout.includes(secret));
  },
);
