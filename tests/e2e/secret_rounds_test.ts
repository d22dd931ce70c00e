/**
 * `secret_prompt` on MCP 2026-07-28: no request from the server, but a call
 * that answers `input_required` and a second call that brings the answer
 * (multi round-trip requests). The SDK v2 client fulfils the question
 * itself through its elicitation handler; raw lines show the wire: the
 * `requestState` is single-use, bound to its call, and a forged one is
 * refused, with nothing typed each time and the secret nowhere the server
 * wrote.
 */
import type { ElicitRequest } from "@modelcontextprotocol/client";
import { ModernPortal } from "../../dev/modern_client.ts";
import { MAIN } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { posixTest } from "../helpers/platform.ts";
import { modernMeta, rawLines } from "../../dev/raw_lines.ts";
import { assertAnswered, filesHolding, getpass, newSecret } from "../helpers/secrets.ts";

type Asked = ElicitRequest["params"];

/** Records what `portal`'s client is asked, and answers with `answer`. */
function onElicit(
  portal: ModernPortal,
  answer: (params: Asked) => unknown,
): Asked[] {
  const asked: Asked[] = [];
  portal.client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(request.params);
    return await answer(request.params) as never;
  });
  return asked;
}

posixTest(
  "2026-07-28 secret_prompt, form mode: input_required, then the answer is typed",
  async () => {
    const secret = newSecret();
    await using portal = await ModernPortal.start({
      noHost: true,
      capabilities: { elicitation: { form: {} } },
    });
    const asked = onElicit(portal, () => ({ action: "accept", content: { secret } }));
    const id = await getpass(portal);
    const reply = await portal.call("process_write", {
      id,
      secret_prompt: "Password for db1",
      keys: ["Enter"],
    });
    assertEquals(asked.length, 1);
    assertEquals(asked[0].mode ?? "form", "form");
    assertStringIncludes(asked[0].message, "Password for db1");
    await assertAnswered(portal, id, reply, secret);
  },
  { only: "linux" },
);

posixTest("2026-07-28 secret_prompt, URL mode: the person answers on Portal's page", async () => {
  const secret = newSecret();
  await using portal = await ModernPortal.start({
    noHost: true,
    capabilities: { elicitation: { url: {}, form: {} } },
  });
  // The person opens the page and sends the form; the client then says they accepted.
  const asked = onElicit(portal, async (params) => {
    assert(params.mode === "url");
    const url = new URL(params.url);
    assertEquals(url.hostname, "127.0.0.1");
    const sent = await fetch(url, { method: "POST", body: new URLSearchParams({ secret }) });
    await sent.body?.cancel();
    return { action: "accept" };
  });
  const id = await getpass(portal);
  const reply = await portal.call("process_write", { id, secret_prompt: "Token", keys: ["Enter"] });
  assertEquals(asked.length, 1);
  assertStringIncludes(asked[0].message, "neither the agent nor this client sees it");
  await assertAnswered(portal, id, reply, secret);
}, { only: "linux" });

posixTest(
  "2026-07-28 secret_prompt declined or cancelled: a tool error, nothing typed",
  async () => {
    await using portal = await ModernPortal.start({
      noHost: true,
      capabilities: { elicitation: {} },
    });
    const id = await getpass(portal);
    for (const action of ["decline", "cancel"]) {
      onElicit(portal, () => ({ action }));
      const error = await portal.fail("process_write", {
        id,
        secret_prompt: "PIN",
        keys: ["Enter"],
      });
      assertMatch(error, new RegExp(`did not give the secret \\(${action}\\); nothing was typed`));
    }
    const still = await portal.call("process_inspect", { id });
    assertEquals([still.state, still.io_count], ["waiting_for_secret", 1]);
  },
  { only: "linux" },
);

posixTest(
  "2026-07-28 secret_prompt without elicitation: the error says to use secret_env",
  async () => {
    await using portal = await ModernPortal.start({ noHost: true });
    const id = await getpass(portal);
    assertMatch(
      await portal.fail("process_write", { id, secret_prompt: "PIN" }),
      /secret_prompt needs an MCP client that can ask the person.*Use secret_env instead/,
    );
  },
  { only: "linux" },
);

posixTest("2026-07-28 requestState: single-use, bound to its call, unforgeable", async () => {
  const secret = newSecret();
  await using dir = await tempDir("portal-rounds-");
  const server = await rawLines(dir.path, {
    noHost: true,
    args: ["--log-level", "debug"],
    stderr: true,
  });
  const meta = modernMeta({ elicitation: { form: {} } }, {
    "io.modelcontextprotocol/logLevel": "debug",
  });
  // deno-lint-ignore no-explicit-any
  const call = async (args: unknown, extra: Record<string, unknown> = {}): Promise<any> => {
    const name = (args as { command?: string }).command ? "process_start" : "process_write";
    return (await server.request("tools/call", { name, arguments: args, _meta: meta, ...extra }))
      .answer;
  };
  try {
    const started = await call({
      command: "python3",
      args: ["-c", "import getpass; print('got', len(getpass.getpass('Password: ')))"],
      pty: true,
      wait: "ready",
    });
    const id = started.result.structuredContent.id;
    assertEquals(started.result.structuredContent.state, "waiting_for_secret");
    const args = { id, secret_prompt: "Password", keys: ["Enter"], wait: "exit" };
    const asked = (await call(args)).result;
    assertEquals(asked.resultType, "input_required");
    assertEquals(asked.inputRequests.secret.method, "elicitation/create");
    assertEquals(asked.inputRequests.secret.params.requestedSchema.required, ["secret"]);
    const state = asked.requestState;
    assertEquals(typeof state, "string");
    const answer = { secret: { action: "accept", content: { secret } } };
    // Forged: refused by the SDK before the call runs.
    const forged = await call(args, { inputResponses: answer, requestState: state + "x" });
    assertEquals(forged.error.code, -32602);
    // Another call (other arguments) cannot use it.
    const other = await call({ ...args, keys: [] }, {
      inputResponses: answer,
      requestState: state,
    });
    assertMatch(other.result.content[0].text, /asked by another call \(requestState\): nothing/);
    // The call that asked: typed.
    const done = await call(args, { inputResponses: answer, requestState: state });
    assertEquals(done.result.resultType, "complete");
    assertEquals(done.result.structuredContent.state, "exited");
    assertStringIncludes(done.result.structuredContent.output, `got ${secret.length}`);
    // Replayed: refused, nothing typed (the program has ended anyway: the refusal comes first).
    const replayed = await call(args, { inputResponses: answer, requestState: state });
    assertMatch(replayed.result.content[0].text, /already answered, withdrawn|has exited/);
  } finally {
    await server[Symbol.asyncDispose]();
  }
  // Sent by the client, the secret is in no line the server wrote, nor in its files or stderr.
  const ours = server.messages.filter((message) => JSON.stringify(message).includes(secret));
  assertEquals(ours, []);
  assert(!server.stderr.includes(secret), "the secret is on stderr");
  assertEquals(await filesHolding(dir.path, secret), []);
}, { only: "linux" });

posixTest(
  "2026-07-28 secret_prompt at a remote's prompt: the call asks, the remote types it",
  async () => {
    const secret = newSecret();
    await using box = await tempDir("portal-box-");
    // The remote: a second Portal on stdio (PORTAL_MACHINE_<name>), which asks its link by a form.
    const remote = `env PORTAL_DB_PATH=${box.path}/box.db ${Deno.execPath()} run -A ${MAIN} ` +
      "--no-host";
    await using portal = await ModernPortal.start({
      noHost: true,
      capabilities: { elicitation: { form: {} } },
      env: { PORTAL_MACHINE_box: remote },
    });
    const asked = onElicit(portal, () => ({ action: "accept", content: { secret } }));
    const started = await portal.call("process_start", {
      command: "python3",
      args: ["-c", "import getpass; print('got', len(getpass.getpass('Password: ')))"],
      machine: "box",
      pty: true,
      wait: "ready",
    });
    assertEquals([started.machine, started.state], ["box", "waiting_for_secret"]);
    // The first round tells the remote no and answers input_required; the SDK client answers it.
    const done = await portal.call("process_write", {
      id: started.id,
      secret_prompt: "Password on box",
      keys: ["Enter"],
      wait: "exit",
    });
    assertEquals(asked.length, 1);
    assertStringIncludes(asked[0].message, "Password on box");
    assertStringIncludes(done.output, `got ${secret.length}`);
    assertEquals(await filesHolding(portal.dir, secret), []);
    assertEquals(await filesHolding(box.path, secret), []);
  },
  { only: "linux" },
);
