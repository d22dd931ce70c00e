/**
 * MCP 2025-11-25's tasks (SEP-1732), as VS Code asks for them: driven by
 * the SDK v1 client's own runtime (`client.experimental.tasks`), and in raw
 * lines shaped as VS Code sends them. A `tools/call` with `params.task`
 * answers a task at once; `tasks/get`, `tasks/result`, `tasks/list` and
 * `tasks/cancel` act on it; `notifications/tasks/status` tells each change;
 * a password prompt during it is asked by an elicitation tied to the task.
 *
 * @module
 */
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { tempDir } from "../../dev/temp_dir.ts";
import { Portal } from "../../dev/portal_client.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { HttpPortal } from "../helpers/http_portal.ts";
import { posixTest } from "../helpers/platform.ts";
import { hostDir } from "../helpers/portal.ts";
import { type Message, rawLines } from "../../dev/raw_lines.ts";

const RELATED = "io.modelcontextprotocol/related-task";

/** A build: a line, a pause, a last line and exit code 3. */
const BUILD = { command: "sh", args: ["-c", "echo compiling; sleep 1; echo linked; exit 3"] };

/** Everything `callToolStream` yields for a task-augmented call of `name`. */
async function stream(portal: Portal, name: string, args: Record<string, unknown>) {
  const seen: Message[] = [];
  const calls = portal.client.experimental.tasks.callToolStream(
    { name, arguments: args },
    CallToolResultSchema,
    { task: { ttl: 60_000 } },
  );
  for await (const message of calls) seen.push(message);
  return seen;
}

posixTest("the SDK v1 client runs a build as a 2025-11-25 task and is told it ended", async () => {
  await using portal = await Portal.start({ noHost: true });
  const { client } = portal;
  assertEquals(client.getServerCapabilities()?.tasks, {
    list: {},
    cancel: {},
    requests: { tools: { call: {} } },
  });
  const { tools } = await client.listTools();
  const optional = tools.filter((tool: Message) => tool.execution?.taskSupport === "optional");
  assertEquals(optional.map((tool: Message) => tool.name).sort(), [
    "process_read_new",
    "process_start",
    "process_write",
  ]);
  const told: Message[] = [];
  client.setNotificationHandler(
    TaskStatusNotificationSchema,
    (note: Message) => void told.push(note),
  );

  const seen = await stream(portal, "process_start", { ...BUILD, wait: "exit" });
  assertEquals(seen[0].type, "taskCreated");
  assertEquals(seen[0].task.status, "working");
  const last = seen.at(-1);
  assertEquals(last.type, "result", JSON.stringify(last));
  assertEquals(last.result.structuredContent.exit_code, 3);
  assertEquals(last.result.structuredContent.output, "compiling\nlinked\n");
  assertEquals(last.result._meta?.[RELATED], { taskId: seen[0].task.taskId });
  // Told of the end, in one line: the state, the exit code and the last line.
  const ended = told.find((note) => note.params.status === "completed");
  assert(ended, `no completed status among ${JSON.stringify(told)}`);
  assertMatch(ended.params.statusMessage, /exited \(exit code 3\); last line: "linked"/);

  // Its client lists it; tasks/get gives it with its ttl and poll interval.
  const { tasks } = await client.experimental.tasks.listTasks();
  assertEquals(tasks.map((task: Message) => task.taskId), [seen[0].task.taskId]);
  const got = await client.experimental.tasks.getTask(seen[0].task.taskId);
  assertEquals([got.status, typeof got.ttl, typeof got.pollInterval], [
    "completed",
    "number",
    "number",
  ]);
});

posixTest("a 2025-11-25 tasks/cancel ends the wait, not the program", async () => {
  await using portal = await Portal.start({ noHost: true });
  const { client } = portal;
  const { id } = await portal.call("process_start", { command: "sleep", args: ["30"] });
  const created = await client.request({
    method: "tools/call",
    params: { name: "process_read_new", arguments: { id, wait: "exit" }, task: {} },
  }, CallToolResultSchema.passthrough()) as Message;
  const taskId = created.task.taskId;
  const cancelled = await client.experimental.tasks.cancelTask(taskId);
  assertEquals(cancelled.status, "cancelled");
  const { processes } = await portal.call("process_list");
  assertEquals(processes.find((process: Message) => process.id === id)?.state, "running");
  // An ended task is not cancelled again (-32602), as the revision says.
  const again = await client.experimental.tasks.cancelTask(taskId).then(
    () => undefined,
    (error: { code?: number }) => error.code,
  );
  assertEquals(again, -32602);
  await portal.call("process_kill", { id });
});

posixTest(
  "a password prompt during a 2025-11-25 task: input_required, asked by an elicitation tied to it",
  async () => {
    await using portal = await Portal.start({
      noHost: true,
      capabilities: { elicitation: { form: {} } },
    });
    const asked: Message[] = [];
    portal.client.setRequestHandler(ElicitRequestSchema, (request: Message) => {
      asked.push(request.params);
      return { action: "accept", content: { secret: "hunter22" } };
    });
    const statuses: string[] = [];
    portal.client.setNotificationHandler(
      TaskStatusNotificationSchema,
      (note: Message) => void statuses.push(note.params.status),
    );
    const seen = await stream(portal, "process_start", {
      command: "python3",
      args: ["-c", "import getpass; p = getpass.getpass('Password: '); print('got', len(p))"],
      pty: true,
      wait: "exit",
    });
    const last = seen.at(-1);
    assertEquals(last.type, "result", JSON.stringify(last));
    assertMatch(last.result.structuredContent.output, /got 8/);
    assertEquals(asked.length, 1);
    assertEquals(asked[0]._meta?.[RELATED], { taskId: seen[0].task.taskId });
    assert(statuses.includes("input_required"), `statuses: ${statuses}`);
    assertEquals(statuses.at(-1), "completed");
  },
  { only: "linux" },
);

posixTest("a tool that never waits refuses a task with -32601", async () => {
  await using portal = await Portal.start({ noHost: true });
  const code = await portal.client.request({
    method: "tools/call",
    params: { name: "process_list", arguments: {}, task: {} },
  }, CallToolResultSchema).then(() => undefined, (error: { code?: number }) => error.code);
  assertEquals(code, -32601);
});

posixTest("raw lines as VS Code sends them: a task, polled, then its result", async () => {
  await using dir = await tempDir("portal-tasks-");
  await using server = await rawLines(dir.path, { noHost: true });
  const { answer: init } = await server.request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: { elicitation: { form: {}, url: {} }, roots: { listChanged: true } },
    clientInfo: { name: "Visual Studio Code", version: "1.107.0" },
  });
  assertEquals(init.result.capabilities.tasks.requests, { tools: { call: {} } });
  await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const { answer: created } = await server.request("tools/call", {
    name: "process_start",
    arguments: { ...BUILD, wait: "exit" },
    task: { ttl: 300_000 },
    _meta: { progressToken: "vscode-1" },
  });
  const { taskId, status } = created.result.task;
  assertEquals(status, "working");
  const { answer: working } = await server.request("tasks/get", { taskId });
  assertEquals(working.result.taskId, taskId);
  // tasks/result blocks until the build has ended, then gives the call's reply.
  const { answer: result } = await server.request("tasks/result", { taskId });
  assertEquals(result.result.structuredContent.exit_code, 3);
  assertEquals(result.result._meta[RELATED], { taskId });
  const { answer: listed } = await server.request("tasks/list", {});
  assertEquals(listed.result.tasks.map((task: Message) => task.status), ["completed"]);
  const statuses = server.messages
    .filter((message) => message.method === "notifications/tasks/status")
    .map((message) => message.params.status);
  assertEquals(statuses.at(-1), "completed");
});

posixTest("tasks/list gives a client its own tasks; tasks/get finds another's by id", async () => {
  await using dir = await hostDir(); // Ends the host the first client starts.
  await using one = await Portal.start({ dir: dir.path });
  await using other = await Portal.start({ dir: dir.path }); // The same host.
  const seen = await stream(one, "process_start", { command: "true", wait: "exit" });
  const taskId = seen[0].task.taskId;
  assertEquals((await other.client.experimental.tasks.listTasks()).tasks, []);
  assertEquals((await other.client.experimental.tasks.getTask(taskId)).status, "completed");
});

posixTest("over HTTP, in a session: a 2025-11-25 task, and its password asked", async () => {
  await using server = await HttpPortal.start();
  const client = await server.connect({ capabilities: { elicitation: { form: {} } } });
  const asked: Message[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request: Message) => {
    asked.push(request.params);
    return { action: "accept", content: { secret: "hunter22" } };
  });
  const seen: Message[] = [];
  const calls = client.experimental.tasks.callToolStream(
    {
      name: "process_start",
      arguments: {
        command: "python3",
        args: ["-c", "import getpass; p = getpass.getpass('Password: '); print('got', len(p))"],
        pty: true,
        wait: "exit",
      },
    },
    CallToolResultSchema,
    { task: { ttl: 60_000 } },
  );
  for await (const message of calls) seen.push(message);
  const last = seen.at(-1);
  assertEquals(last.type, "result", JSON.stringify(last));
  assertMatch(last.result.structuredContent.output, /got 8/);
  assertEquals(asked[0]?._meta?.[RELATED], { taskId: seen[0].task.taskId });
}, { only: "linux" });
