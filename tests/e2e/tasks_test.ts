/**
 * Long waits as MCP tasks (`io.modelcontextprotocol/tasks`, 2026-07-28), in
 * raw lines: the SDK v2 client does not speak the extension. A waiting call
 * of a client that declares it answers `resultType: "task"` once it has
 * waited {@link TASKS}.afterMs; `tasks/get` tells how it goes and then
 * gives the reply; `tasks/cancel` ends the wait, not the program; a task on
 * a kept process outlives its client; without the extension nothing changes.
 *
 * @module
 */
import { tempDir } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";
import { TASKS, WAIT_MS } from "../../src/limits.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { posixTest } from "../helpers/platform.ts";
import { hostDir } from "../helpers/portal.ts";
import { type Message, modernMeta, type RawLines, rawLines } from "../helpers/raw_lines.ts";

const TASKS_ON = { extensions: { "io.modelcontextprotocol/tasks": {} } };

/** Calls `name`; the answer's result (or its error). */
async function call(
  server: RawLines,
  name: string,
  args: Record<string, unknown>,
  capabilities: Record<string, unknown> = TASKS_ON,
): Promise<Message> {
  const { answer } = await server.request("tools/call", {
    name,
    arguments: args,
    _meta: modernMeta(capabilities),
  });
  return answer.result ?? answer.error;
}

/** `tasks/get` of `taskId`: the task (or the error). */
async function get(server: RawLines, taskId: string): Promise<Message> {
  const { answer } = await server.request("tasks/get", { taskId, _meta: modernMeta(TASKS_ON) });
  return answer.result ?? answer.error;
}

/** Polls `taskId` until it is no longer working; returns it then. */
function settled(server: RawLines, taskId: string): Promise<Message> {
  return waitFor(`task ${taskId} to end`, () => get(server, taskId), {
    until: (task) => task.status !== "working",
    timeoutMs: 60_000,
    intervalMs: 200,
  });
}

posixTest(
  "a wait past TASKS.afterMs becomes a task; tasks/get tells, then gives the reply",
  async () => {
    await using dir = await tempDir("portal-tasks-");
    await using server = await rawLines(dir.path, { noHost: true });
    const script = "echo started; sleep 3; echo half way; sleep 3; echo done";
    const started = performance.now();
    const created = await call(server, "process_start", {
      command: "sh",
      args: ["-c", script],
      wait: "exit",
      wait_ms: 400_000, // Beyond the synchronous cap: a task may wait longer.
    });
    const after = performance.now() - started;
    assertEquals([created.resultType, created.status], ["task", "working"]);
    // Not before TASKS.afterMs; and before the program ended, since the task is working.
    assert(after >= TASKS.afterMs, `answered after ${after} ms`);
    assertEquals(typeof created.taskId, "string");
    assertEquals(created.pollIntervalMs, TASKS.pollMs);
    assertMatch(created.createdAt, /^\d{4}-\d\d-\d\dT/);
    assertMatch(created.statusMessage, /^process_start: waiting for \d+ s/);
    const working = await get(server, created.taskId);
    assertEquals([working.resultType, working.status, working.result], [
      "complete",
      "working",
      undefined,
    ]);
    const done = await settled(server, created.taskId);
    assertEquals(done.status, "completed");
    assertMatch(done.statusMessage, /^process_start done after \d+ s\.$/);
    // The reply the call would have given.
    const reply = done.result;
    assertEquals(reply.structuredContent.output, "started\nhalf way\ndone\n");
    assertEquals([reply.structuredContent.reason, reply.structuredContent.exit_code], ["exit", 0]);
    assertEquals(
      reply.content[0].text,
      `[id ${reply.structuredContent.id}, exited 0]\n${reply.structuredContent.output}`,
    );
  },
);

posixTest("a task's statusMessage names the process, its state and its last line", async () => {
  await using dir = await tempDir("portal-tasks-");
  await using server = await rawLines(dir.path, { noHost: true });
  const { id } = (await call(server, "process_start", {
    command: "sh",
    args: ["-c", "echo compiling module 7 of 9; sleep 30"],
  })).structuredContent;
  const created = await call(server, "process_read_new", { id, wait: "exit", wait_ms: 60_000 });
  assertEquals(created.resultType, "task");
  const told = await waitFor("a status with the last line", () => get(server, created.taskId), {
    until: (task) => /last line/.test(task.statusMessage),
    intervalMs: 200,
  });
  assertMatch(
    told.statusMessage,
    new RegExp(
      `^process_read_new \\(process ${id}\\): waiting for \\d+ s; the program is ` +
        `running; last line: "compiling module 7 of 9"\\.$`,
    ),
  );
  await call(server, "process_kill", { id });
  assertEquals((await settled(server, created.taskId)).result.structuredContent.reason, "exit");
});

posixTest("tasks/cancel ends the wait, not the program; an unknown task is an error", async () => {
  await using dir = await tempDir("portal-tasks-");
  await using server = await rawLines(dir.path, { noHost: true });
  const { id } = (await call(server, "process_start", { command: "sleep", args: ["60"] }))
    .structuredContent;
  const created = await call(server, "process_read_new", { id, wait: "exit", wait_ms: 60_000 });
  const { answer } = await server.request("tasks/cancel", {
    taskId: created.taskId,
    _meta: modernMeta(TASKS_ON),
  });
  assertEquals(answer.result.resultType, "complete");
  const cancelled = await settled(server, created.taskId);
  assertEquals(cancelled.status, "cancelled");
  assertMatch(cancelled.statusMessage, /the wait was cancelled/);
  const process = (await call(server, "process_inspect", { id })).structuredContent;
  assertEquals(process.status, "running");
  for (const method of ["tasks/get", "tasks/cancel"]) {
    const unknown = (await server.request(method, { taskId: "no-such", _meta: modernMeta() }))
      .answer.error;
    assertEquals(unknown.code, -32602);
    assertMatch(unknown.message, /No task "no-such" on this server/);
  }
  await call(server, "process_kill", { id });
});

posixTest(
  "without the extension a long wait is as before: synchronous, wait_ms ≤ 300 s",
  async () => {
    await using dir = await tempDir("portal-tasks-");
    await using server = await rawLines(dir.path, { noHost: true });
    const reply = await call(server, "process_start", {
      command: "sh",
      args: ["-c", "sleep 4; echo late"],
      wait: "exit",
    }, {});
    assertEquals([reply.resultType, reply.structuredContent.output], ["complete", "late\n"]);
    const refused = await call(server, "process_start", {
      command: "true",
      wait_ms: WAIT_MS.max + 1,
    }, {});
    assertEquals(refused.isError, true);
    assertMatch(refused.content[0].text, /"wait_ms" must be at most 300000/);
    // And beyond the task cap, even with the extension.
    const beyond = await call(server, "process_start", {
      command: "true",
      wait_ms: TASKS.waitMaxMs + 1,
    });
    assertMatch(beyond.content[0].text, /"wait_ms" must be at most 300000/);
  },
);

posixTest("a task on a kept process outlives its client: another polls it to the end", async () => {
  await using host = await hostDir();
  let taskId: string;
  {
    await using first = await rawLines(host.path);
    const created = await call(first, "process_start", {
      command: "sh",
      args: ["-c", "sleep 5; echo finished"],
      keep: true,
      wait: "exit",
    });
    assertEquals(created.resultType, "task");
    taskId = created.taskId;
  }
  await using second = await rawLines(host.path);
  const done = await settled(second, taskId);
  assertEquals(done.status, "completed");
  assertEquals(done.result.structuredContent.output, "finished\n");
});
