/**
 * Told, not polling (MCP 2026-07-28): a client that opens
 * `subscriptions/listen` with `notifications.taskIds` hears
 * `notifications/tasks` with the full task at every status change of those
 * tasks, over stdio and over HTTP, and never sends `tasks/get`; each says
 * in one line what happened. A client that did not declare the extension
 * gets `-32021`, there and on `tasks/get`, `tasks/update`, `tasks/cancel`.
 * In raw lines: the SDK v2 client has no runtime for the extension.
 *
 * @module
 */
import { tempDir } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { HttpPortal } from "../helpers/http_portal.ts";
import { posixTest } from "../helpers/platform.ts";
import { hostDir } from "../helpers/portal.ts";
import { type Message, modernMeta, type RawLines, rawLines } from "../../dev/raw_lines.ts";

const TASKS_ON = { extensions: { "io.modelcontextprotocol/tasks": {} } };
const SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId";
const SHORT = { PORTAL_TASK_AFTER_MS: "300" };

/** Starts `args` as a task (it outlasts PORTAL_TASK_AFTER_MS); its id. */
async function task(server: RawLines, name: string, args: Record<string, unknown>) {
  const { answer } = await server.request("tools/call", {
    name,
    arguments: args,
    _meta: modernMeta(TASKS_ON),
  });
  assertEquals(answer.result.resultType, "task", JSON.stringify(answer));
  return answer.result.taskId as string;
}

/** Opens a subscription `id` to `taskIds` (its answer comes only when it ends). */
function listen(
  server: RawLines,
  id: string,
  taskIds: string[],
  capabilities: Record<string, unknown> = TASKS_ON,
) {
  return server.send({
    jsonrpc: "2.0",
    id,
    method: "subscriptions/listen",
    params: { notifications: { taskIds }, _meta: modernMeta(capabilities) },
  });
}

/** The `notifications/tasks` of subscription `id` heard so far. */
function heard(server: RawLines, id: string): Message[] {
  return server.messages.filter((message) =>
    message.method === "notifications/tasks" && message.params._meta?.[SUBSCRIPTION] === id
  );
}

/** Waits until subscription `id` has told `taskId` is `status`; that notification. */
function told(server: RawLines, id: string, taskId: string, status: string): Promise<Message> {
  return waitFor(
    `task ${taskId} told ${status}`,
    () =>
      heard(server, id).find((note) =>
        note.params.taskId === taskId && note.params.status === status
      ),
    { timeoutMs: 30_000 },
  );
}

posixTest(
  "over stdio a listening client is told each change of its tasks, never polling",
  async () => {
    await using dir = await tempDir("portal-listen-");
    await using server = await rawLines(dir.path, { noHost: true, env: SHORT });
    // The build goes on when the test says so: told "working" first, however slow the machine.
    const go = `${dir.path}/go`;
    const build = await task(server, "process_start", {
      command: "sh",
      args: [
        "-c",
        `echo compiling; until [ -e '${go}' ]; do sleep 0.05; done; echo 'error: 2 warnings'; exit 2`,
      ],
      wait: "exit",
    });
    const { answer: started } = await server.request("tools/call", {
      name: "process_start",
      arguments: { command: "sleep", args: ["30"] },
      _meta: modernMeta(),
    });
    const sleeper = await task(server, "process_read_new", {
      id: started.result.structuredContent.id,
      wait: "exit",
    });
    await listen(server, "sub-1", [build, sleeper, "no-such-task"]);
    const ack = await waitFor(
      "the acknowledgement",
      () =>
        server.messages.find((message) =>
          message.method === "notifications/subscriptions/acknowledged"
        ),
      { timeoutMs: 10_000 },
    );
    assertEquals(ack.params._meta[SUBSCRIPTION], "sub-1");
    assertEquals(ack.params.notifications.taskIds, [build, sleeper], "only tasks it has");
    await told(server, "sub-1", build, "working"); // Where it is when the listen came.
    Deno.writeTextFileSync(go, "");

    const done = await told(server, "sub-1", build, "completed");
    // The full task, inline, and one line of what happened: state, exit code, last line.
    assertEquals(done.params.result.structuredContent.exit_code, 2);
    assertMatch(
      done.params.statusMessage,
      /exited \(exit code 2\); last line: "error: 2 warnings"/,
    );
    assertEquals(done.params.ttlMs, 3_600_000);

    await server.request("tasks/cancel", { taskId: sleeper, _meta: modernMeta(TASKS_ON) });
    const cancelled = await told(server, "sub-1", sleeper, "cancelled");
    assertMatch(cancelled.params.statusMessage, /the wait was cancelled/);
    assert(
      !server.messages.some((message) => message.method === "tasks/get"),
      "nothing was polled",
    );

    // Its tasks have ended: the subscription ends, answered `complete`.
    const closed = await waitFor(
      "the end of sub-1",
      () => server.messages.find((message) => message.id === "sub-1"),
      { timeoutMs: 10_000 },
    );
    assertEquals(closed.result, { resultType: "complete", _meta: { [SUBSCRIPTION]: "sub-1" } });

    // Cancelled by its client (notifications/cancelled): nothing more is told on it.
    const goOn = `${dir.path}/go-on`;
    const other = await task(server, "process_start", {
      command: "sh",
      args: ["-c", `until [ -e '${goOn}' ]; do sleep 0.05; done`],
      wait: "exit",
    });
    await listen(server, "sub-2", [other]);
    await told(server, "sub-2", other, "working");
    await server.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "sub-2", _meta: modernMeta(TASKS_ON) },
    });
    // Read after the cancellation, on the same stdin: once sub-3 hears, sub-2 is gone.
    await listen(server, "sub-3", [other]);
    await told(server, "sub-3", other, "working");
    Deno.writeTextFileSync(goOn, "");
    await told(server, "sub-3", other, "completed");
    assertEquals(heard(server, "sub-2").map((note) => note.params.status), ["working"]);
    assert(!server.messages.some((message) => message.id === "sub-2"), "sub-2 was answered");
  },
);

posixTest("through a door, the host tells a listening client", async () => {
  await using dir = await hostDir(); // Ends the host the door starts.
  await using server = await rawLines(dir.path, { env: SHORT });
  const build = await task(server, "process_start", {
    command: "sh",
    args: ["-c", "sleep 1; echo done"],
    wait: "exit",
  });
  await listen(server, "door", [build]);
  const done = await told(server, "door", build, "completed");
  assertEquals(done.params.result.structuredContent.output, "done\n");
});

posixTest("a listening client is told input_required with the question, then the end", async () => {
  await using dir = await tempDir("portal-listen-");
  await using server = await rawLines(dir.path, { noHost: true, env: SHORT });
  const capabilities = { ...TASKS_ON, elicitation: { form: {} } };
  const { answer } = await server.request("tools/call", {
    name: "process_start",
    arguments: {
      command: "python3",
      args: ["-c", "import getpass, time; time.sleep(0.5); print('got', len(getpass.getpass()))"],
      pty: true,
      wait: "exit",
    },
    _meta: modernMeta(capabilities),
  });
  const taskId = answer.result.taskId;
  await listen(server, "sub", [taskId]);
  const asking = await told(server, "sub", taskId, "input_required");
  const [key] = Object.keys(asking.params.inputRequests);
  assertMatch(asking.params.statusMessage, /the person is asked: Password: \(process \d+\)/);
  await server.request("tasks/update", {
    taskId,
    inputResponses: { [key]: { action: "accept", content: { secret: "hunter22" } } },
    _meta: modernMeta(capabilities),
  });
  const done = await told(server, "sub", taskId, "completed");
  assertMatch(done.params.result.structuredContent.output, /got 8/);
}, { only: "linux" });

posixTest(
  "without the extension: -32021 on listen, tasks/get, tasks/update, tasks/cancel",
  async () => {
    await using dir = await tempDir("portal-listen-");
    await using server = await rawLines(dir.path, { noHost: true, env: SHORT });
    const taskId = await task(server, "process_start", {
      command: "sleep",
      args: ["1"],
      wait: "exit",
    });
    await listen(server, "bare", [taskId], {});
    const refused = await waitFor(
      "the refusal",
      () => server.messages.find((message) => message.id === "bare"),
      { timeoutMs: 10_000 },
    );
    assertEquals(refused.error.code, -32021);
    assertEquals(refused.error.data.requiredCapabilities, TASKS_ON);
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const { answer } = await server.request(method, {
        taskId,
        inputResponses: {},
        _meta: modernMeta(),
      });
      assertEquals(answer.error?.code, -32021, `${method}: ${JSON.stringify(answer)}`);
    }
  },
);

/** The JSON-RPC messages of an SSE body, as they come; `until` stops reading. */
async function readEvents(response: Response, until: (messages: Message[]) => boolean) {
  const messages: Message[] = [];
  let pending = "";
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  // A deadline only a broken server misses: the stream is cut, and the assertions say what lacks.
  const deadline = setTimeout(() => void reader.cancel(), 30_000);
  while (!until(messages)) {
    const { value, done } = await reader.read();
    if (done) break;
    pending += value;
    let end;
    while ((end = pending.indexOf("\n\n")) >= 0) {
      const data = pending.slice(0, end).split("\n").find((line) => line.startsWith("data: "));
      if (data) messages.push(JSON.parse(data.slice(6)));
      pending = pending.slice(end + 2);
    }
  }
  clearTimeout(deadline);
  await reader.cancel();
  return messages;
}

posixTest("over HTTP a listen is an SSE stream of the task's changes", async () => {
  await using server = await HttpPortal.start({ env: SHORT });
  const created = await (await server.modernPost("tools/call", {
    name: "process_start",
    arguments: { command: "sh", args: ["-c", "sleep 1; echo built"], wait: "exit" },
    _meta: modernMeta(TASKS_ON),
  }, { name: "process_start" })).json();
  const taskId = created.result.taskId;
  const response = await server.modernPost("subscriptions/listen", {
    notifications: { taskIds: [taskId] },
    _meta: modernMeta(TASKS_ON),
  }, { id: 7 });
  assertEquals(response.headers.get("content-type"), "text/event-stream");
  const messages = await readEvents(response, (seen) => seen.some((message) => message.id === 7));
  assertEquals(messages[0].method, "notifications/subscriptions/acknowledged");
  assertEquals(messages[0].params.notifications.taskIds, [taskId]);
  const done = messages.find((message) => message.params?.status === "completed");
  assertEquals(done.params._meta[SUBSCRIPTION], 7);
  assertEquals(done.params.result.structuredContent.output, "built\n");
  // Its one task has ended: the stream ends with the listen's `complete` result.
  assertEquals(messages.at(-1).result, { resultType: "complete", _meta: { [SUBSCRIPTION]: 7 } });

  const bare = await server.modernPost("subscriptions/listen", {
    notifications: { taskIds: [taskId] },
    _meta: modernMeta({}),
  }, { id: 8 });
  assertEquals(bare.status, 400);
  assertEquals((await bare.json()).error.code, -32021);
});

posixTest(
  "over HTTP an MCP-Protocol-Version header that disagrees with _meta is -32020",
  async () => {
    await using server = await HttpPortal.start();
    const response = await fetch(server.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${server.token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/list",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: {
          _meta: { ...modernMeta(), "io.modelcontextprotocol/protocolVersion": "2025-11-25" },
        },
      }),
    });
    assertEquals(response.status, 400);
    const { error } = await response.json();
    assertEquals(error.code, -32020);
    assertMatch(error.message, /HeaderMismatch/);
  },
);
