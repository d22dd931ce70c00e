/**
 * Long waits as MCP tasks (`io.modelcontextprotocol/tasks`, 2026-07-28), in
 * raw lines: the SDK v2 client does not speak the extension. A waiting call
 * of a client that declares it answers `resultType: "task"` once it has
 * waited {@link TASKS}.afterMs, or `PORTAL_TASK_AFTER_MS` (one test holds
 * the default; the others set a short one: their programs wait less);
 * `tasks/get` tells how it goes and then gives the reply; `tasks/cancel`
 * ends the wait, not the program; a password prompt during the wait is a
 * question answered by `tasks/update`; a task on a kept process outlives
 * its client and its host; without the extension nothing changes.
 *
 * @module
 */
import { tempDir } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";
import { TASKS, WAIT_MS } from "../../src/limits.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { posixTest } from "../helpers/platform.ts";
import { HttpPortal } from "../helpers/http_portal.ts";
import { hostDir } from "../helpers/portal.ts";
import { endHost, hostPid } from "../../dev/portal_client.ts";
import { type Message, modernMeta, type RawLines, rawLines } from "../../dev/raw_lines.ts";

const TASKS_ON = { extensions: { "io.modelcontextprotocol/tasks": {} } };
/** The servers' `PORTAL_TASK_AFTER_MS` but in the test of the default. */
const AFTER_MS = 300;
const SHORT = { PORTAL_TASK_AFTER_MS: String(AFTER_MS) };

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
    await using server = await rawLines(dir.path, { noHost: true }); // PORTAL_TASK_AFTER_MS unset.
    // Still running 2 s after it became a task: long enough to be seen working.
    const script = "echo started; sleep 2; echo half way; sleep 3; echo done";
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
    assertMatch(created.statusMessage, /^process_start \(process \d+\): waiting for \d+ s/);
    const working = await get(server, created.taskId);
    assertEquals([working.resultType, working.status, working.result], [
      "complete",
      "working",
      undefined,
    ]);
    const done = await settled(server, created.taskId);
    assertEquals(done.status, "completed");
    assertMatch(
      done.statusMessage,
      /^process_start \(process \d+\) done after \d+ s; the program is exited \(exit code 0\); last line: "done"\.$/,
    );
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
  await using server = await rawLines(dir.path, { noHost: true, env: SHORT });
  const { id } = (await call(server, "process_start", {
    command: "sh",
    args: ["-c", "echo compiling module 7 of 9; sleep 30"],
  }, {})).structuredContent;
  const created = await call(server, "process_read_new", { id, wait: "exit", wait_ms: 60_000 });
  assertEquals(created.resultType, "task");
  // The state comes with the wait's first progress (after a second), the line at once.
  const told = await waitFor("a status with the state", () => get(server, created.taskId), {
    until: (task) => /the program is/.test(task.statusMessage),
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
  await using server = await rawLines(dir.path, { noHost: true, env: SHORT });
  const { id } = (await call(server, "process_start", { command: "sleep", args: ["60"] }, {}))
    .structuredContent;
  // A wait_ms shorter than the setting is answered, never a task.
  const sooner = await call(server, "process_read_new", { id, wait: "exit", wait_ms: 100 });
  assertEquals([sooner.resultType, sooner.structuredContent.reason], ["complete", "timeout"]);
  // One past the setting but short of the default is a task: the setting holds.
  const past = await call(server, "process_read_new", { id, wait: "exit", wait_ms: 1000 });
  assertEquals(past.resultType, "task");
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
    const unknown = (await server.request(method, {
      taskId: "no-such",
      _meta: modernMeta(TASKS_ON),
    })).answer.error;
    assertEquals(unknown.code, -32602);
    assertMatch(unknown.message, /No task "no-such" on this server/);
  }
  assertEquals((await settled(server, past.taskId)).result.structuredContent.reason, "timeout");
  await call(server, "process_kill", { id });
}, { only: "linux" });

posixTest(
  "without the extension a long wait is as before: synchronous, wait_ms ≤ 300 s",
  async () => {
    await using dir = await tempDir("portal-tasks-");
    await using server = await rawLines(dir.path, { noHost: true, env: SHORT });
    const reply = await call(server, "process_start", {
      command: "sh",
      args: ["-c", "sleep 1; echo late"], // Past the setting: a task, had the client declared it.
      wait: "exit",
    }, {});
    assertEquals([reply.resultType, reply.structuredContent.output], ["complete", "late\n"]);
    const refused = await call(server, "process_start", {
      command: "true",
      wait_ms: WAIT_MS.max + 1,
    }, {});
    assertEquals(refused.isError, true);
    assertMatch(refused.content[0].text, /wait_ms 300001 is over 300000.*progressToken/);
    // And beyond the task cap, with the extension: its refusal names the task's bound.
    const beyond = await call(server, "process_start", {
      command: "true",
      wait_ms: TASKS.waitMaxMs + 1,
    });
    assertMatch(beyond.content[0].text, new RegExp(`"wait_ms" must be at most ${TASKS.waitMaxMs}`));
  },
);

posixTest(
  "a task on a kept process outlives its client and its host: it is kept on disk",
  async () => {
    await using host = await hostDir();
    let taskId: string;
    let cutShort: string;
    {
      await using first = await rawLines(host.path, { env: SHORT }); // The host it starts has it.
      const created = await call(first, "process_start", {
        command: "sh",
        args: ["-c", "sleep 2; echo finished"], // Ends after its client has gone.
        keep: true,
        wait: "exit",
      });
      assertEquals(created.resultType, "task");
      taskId = created.taskId;
      const { id } = (await call(first, "process_start", {
        command: "sleep",
        args: ["30"], // Outlives the killed host a while; its wait would last longer.
        keep: true,
      }, {})).structuredContent;
      cutShort = (await call(first, "process_read_new", { id, wait: "exit", wait_ms: 900_000 }))
        .taskId;
    }
    {
      await using second = await rawLines(host.path, { env: SHORT });
      const done = await settled(second, taskId);
      assertEquals(done.status, "completed");
      assertEquals(done.result.structuredContent.output, "finished\n");
    }
    // The host dies: the ended task's reply is still there, the cut one says so.
    Deno.kill(hostPid(host.path)!, "SIGKILL");
    await endHost(host.path);
    await using third = await rawLines(host.path, { env: SHORT });
    const again = await get(third, taskId);
    assertEquals([again.status, again.result.structuredContent.output], [
      "completed",
      "finished\n",
    ]);
    const cut = await get(third, cutShort);
    assertEquals(cut.status, "failed");
    assertMatch(cut.error.message, /The server stopped during this wait/);
  },
);

/**
 * A python that asks for a password (echo off), then reports its length; it
 * asks after the task is made, as a program that asks late in a long wait.
 */
const ASKS = [
  "-c",
  `import getpass, time; time.sleep(${(AFTER_MS + 200) / 1000}); ` +
  "p = getpass.getpass('Password: '); print('got', len(p))",
];

/**
 * Starts {@link ASKS} and waits for its exit as a task: by `process_read_new`,
 * or by the start itself; the task, once it asks.
 */
async function askingTask(
  server: RawLines,
  capabilities: Record<string, unknown>,
  by: "read" | "start" = "read",
) {
  const start = { command: "python3", args: ASKS, pty: true };
  let created;
  if (by === "start") {
    created = await call(server, "process_start", { ...start, wait: "exit" }, capabilities);
  } else {
    const { id } = (await call(server, "process_start", start, {})).structuredContent;
    created = await call(server, "process_read_new", { id, wait: "exit" }, capabilities);
  }
  assertEquals(created.resultType, "task");
  const asking = await waitFor("the task to ask", () => get(server, created.taskId), {
    until: (task) => task.status !== "working",
    intervalMs: 200,
  });
  const id = Number(/process (\d+)/.exec(asking.statusMessage)?.[1]);
  return { id, taskId: created.taskId, asking };
}

for (const [mode, by] of [["form", "read"], ["url", "read"], ["form", "start"]] as const) {
  posixTest(
    `a password prompt during a task (${mode} mode, process_${by === "read" ? "read_new" : by}): ` +
      "input_required, tasks/update types it",
    async () => {
      await using dir = await tempDir("portal-tasks-");
      await using server = await rawLines(dir.path, { noHost: true, env: SHORT });
      const capabilities = { ...TASKS_ON, elicitation: { [mode]: {} } };
      const { taskId, asking } = await askingTask(server, capabilities, by);
      assertEquals(asking.status, "input_required");
      assertMatch(
        asking.statusMessage,
        /the person is asked: .*\(inputRequests; answer with tasks\/update\)/,
      );
      const question = asking.inputRequests["secret-1"];
      assertEquals([question.method, question.params.mode], ["elicitation/create", mode]);
      assertMatch(question.params.message, /asks for: Password: \(process \d+\)/);
      // An answer to no open question is ignored.
      const { answer: ignored } = await server.request("tasks/update", {
        taskId,
        inputResponses: { "secret-9": { action: "accept", content: { secret: "no" } } },
        _meta: modernMeta(capabilities),
      });
      assertEquals(ignored.result.resultType, "complete");
      if (mode === "url") {
        // The person sends it on Portal's page; the client only says they accepted.
        const url = new URL(question.params.url);
        assertEquals(url.hostname, "127.0.0.1");
        const sent = await fetch(url, {
          method: "POST",
          body: new URLSearchParams({ secret: "hunter22" }),
        });
        await sent.body?.cancel();
      }
      const content = mode === "form" ? { content: { secret: "hunter22" } } : {};
      const { answer } = await server.request("tasks/update", {
        taskId,
        inputResponses: { "secret-1": { action: "accept", ...content } },
        _meta: modernMeta(capabilities),
      });
      assertEquals(answer.result.resultType, "complete");
      const done = await settled(server, taskId);
      assertEquals(done.status, "completed");
      const reply = done.result.structuredContent;
      assertEquals([reply.reason, reply.exit_code], ["exit", 0]);
      assertMatch(reply.output, /got 8/);
      assert(!JSON.stringify(server.messages).includes("hunter22"), "the secret went back out");
    },
    { only: "linux" }, // Where the kernel shows the echo-off prompt being read.
  );
}

posixTest("a declined password ends the task's wait with a tool error; nothing typed", async () => {
  await using dir = await tempDir("portal-tasks-");
  await using server = await rawLines(dir.path, { noHost: true, env: SHORT });
  const capabilities = { ...TASKS_ON, elicitation: { form: {} } };
  const { id, taskId } = await askingTask(server, capabilities);
  await server.request("tasks/update", {
    taskId,
    inputResponses: { "secret-1": { action: "decline" } },
    _meta: modernMeta(capabilities),
  });
  const done = await settled(server, taskId);
  assertEquals([done.status, done.result.isError], ["completed", true]);
  assertMatch(done.result.content[0].text, /did not give the secret \(decline\)/);
  const process = (await call(server, "process_inspect", { id })).structuredContent;
  assertEquals(process.state, "waiting_for_secret");
  await call(server, "process_kill", { id });
}, { only: "linux" });

posixTest("over HTTP, with no session: a task is polled by its id (Mcp-Name)", async () => {
  await using server = await HttpPortal.start({ env: SHORT });
  let next = 1;
  const post = async (method: string, params: Record<string, unknown>, name: string) => {
    const response = await server.modernPost(method, {
      ...params,
      _meta: modernMeta(TASKS_ON),
    }, { id: next++, name });
    assertEquals(response.status, 200);
    return (await response.json()).result;
  };
  const created = await post("tools/call", {
    name: "process_start",
    arguments: { command: "sh", args: ["-c", "sleep 1; echo over http"], wait: "exit" },
  }, "process_start");
  assertEquals(created.resultType, "task");
  const done = await waitFor(
    "the task to end",
    () => post("tasks/get", { taskId: created.taskId }, created.taskId),
    {
      until: (task) => task.status !== "working",
      timeoutMs: 60_000,
      intervalMs: 200,
    },
  );
  assertEquals(done.result.structuredContent.output, "over http\n");
});
