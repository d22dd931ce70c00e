/**
 * The task table of a server (src/mcp/tasks/tasks.ts) in process, on a
 * store in memory and work that ends when the test says: how a status
 * moves (working ⇄ input_required, then one ended status, never left),
 * what watchers hear, what the store keeps across a restart, whose tasks a
 * client lists, and when a 2026-07-28 call becomes a task at all.
 *
 * @module
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import assertStrict from "node:assert/strict";
import { assert, assertEquals } from "../helpers/assert.ts";
import type { TaskRow, TaskStore } from "../../src/core/steps/task_file.ts";
import type { Questions, QuestionsListener } from "../../src/mcp/tasks/questions.ts";
import type { TaskProgress, TaskView } from "../../src/mcp/tasks/task.ts";
import { Tasks } from "../../src/mcp/tasks/tasks.ts";

/** A store in memory, as the task file keeps rows. */
class MemoryStore implements TaskStore {
  readonly rows = new Map<string, TaskRow>();
  save(row: TaskRow): void {
    this.rows.set(row.id, { ...row });
  }
  load(id: string): TaskRow | undefined {
    return this.rows.get(id);
  }
  forget(): void {}
}

const REPLY: CallToolResult = {
  content: [{ type: "text", text: "exited" }],
  structuredContent: { state: "exited", exit_code: 2 },
};

/** Work that ends when `finish` or `fail` is called; `progress` reports as a wait does. */
function work() {
  const { promise, resolve, reject } = Promise.withResolvers<CallToolResult>();
  let report: ((progress: TaskProgress) => void) | undefined;
  let signal: AbortSignal | undefined;
  return {
    run: (aborted: AbortSignal, onProgress: (progress: TaskProgress) => void) => {
      signal = aborted;
      report = onProgress;
      return promise;
    },
    finish: (result = REPLY) => resolve(result),
    fail: (error: Error) => reject(error),
    progress: (state: string) => report!({ id: 7, elapsedMs: 1000, state }),
    get aborted() {
      return signal?.aborted ?? false;
    },
  };
}

/** A task started at once (2025-11-25's way). */
async function startNow(tasks: Tasks, job: ReturnType<typeof work>, owner?: object) {
  const started = await tasks.start(job.run, { tool: "process_write", processId: 7, owner }, "now");
  assert("task" in started, "a task at once");
  return started.task;
}

Deno.test("a task works, then completes with the reply; the store has it", async () => {
  const store = new MemoryStore();
  const tasks = new Tasks({ store });
  const job = work();
  const task = await startNow(tasks, job);
  assertEquals(task.status, "working");
  assertEquals(store.rows.get(task.taskId)?.status, "working", "stored before its id goes out");
  job.finish();
  const ended = await tasks.ended(task.taskId);
  assertEquals(ended.status, "completed");
  assertEquals(ended.result, REPLY);
  assertEquals(store.rows.get(task.taskId)?.status, "completed");
  assert(/exit code 2/.test(ended.statusMessage), ended.statusMessage);
  tasks.close();
});

Deno.test("a cancelled task is cancelled at once and stays so when its work ends", async () => {
  const tasks = new Tasks();
  const job = work();
  const task = await startNow(tasks, job);
  assert(tasks.cancel(task.taskId), "an unended task is cancelled");
  assert(job.aborted, "the wait was aborted");
  assertEquals(tasks.get(task.taskId).status, "cancelled");
  job.finish();
  await tasks.ended(task.taskId);
  assertEquals(tasks.get(task.taskId).status, "cancelled");
  assertEquals(tasks.cancel(task.taskId), false, "an ended task is not cancelled again");
  tasks.close();
});

Deno.test("a JSON-RPC error fails the task, with its code", async () => {
  const tasks = new Tasks();
  const job = work();
  const task = await startNow(tasks, job);
  job.fail(Object.assign(new Error("gone"), { code: -32603 }));
  const ended = await tasks.ended(task.taskId);
  assertEquals([ended.status, ended.error], ["failed", { code: -32603, message: "gone" }]);
  tasks.close();
});

Deno.test("questions move a task to input_required and back; an ended task stays ended", async () => {
  const tasks = new Tasks();
  let listener: QuestionsListener | undefined;
  const seen: string[] = [];
  const questions: Questions = {
    asked: "a password",
    see: ({ state }) => {
      seen.push(state);
      listener!.asking(state === "waiting_for_secret");
    },
    withdraw: () => {},
  };
  const heard: TaskView[] = [];
  tasks.watch((view) => heard.push(view));
  const job = work();
  const started = await tasks.start(job.run, {
    tool: "process_write",
    processId: 7,
    questions: (told) => (listener = told, questions),
  }, "now");
  assert("task" in started);
  const id = started.task.taskId;
  job.progress("waiting_for_secret");
  assertEquals(tasks.get(id).status, "input_required");
  assert(/asked: a password/.test(tasks.get(id).statusMessage), tasks.get(id).statusMessage);
  job.progress("running");
  assertEquals(tasks.get(id).status, "working");
  job.finish();
  await tasks.ended(id);
  listener!.asking(true);
  assertEquals(tasks.get(id).status, "completed", "an ended task never moves");
  assertEquals(heard.map((view) => view.status), [
    "working",
    "input_required",
    "working",
    "completed",
  ]);
  assertEquals(seen, ["waiting_for_secret", "running"]);
  tasks.close();
});

Deno.test("after a restart the store gives an ended task's reply, an unended one as cut short", async () => {
  const store = new MemoryStore();
  const before = new Tasks({ store });
  const done = work();
  const ended = await startNow(before, done);
  done.finish();
  await before.ended(ended.taskId);
  const waiting = await startNow(before, work());
  before.close();
  const after = new Tasks({ store });
  assertEquals(after.get(ended.taskId).result, REPLY);
  const cut = after.get(waiting.taskId);
  assertEquals(cut.status, "failed");
  assert(/restarted/.test(cut.error!.message), cut.error!.message);
  assertStrict.throws(() => after.get("no-such-task"), /No task/);
  after.close();
});

Deno.test("a client lists its own tasks only", async () => {
  const tasks = new Tasks();
  const [one, other] = [{}, {}];
  const mine = await startNow(tasks, work(), one);
  await startNow(tasks, work(), other);
  assertEquals(tasks.list(one).map((view) => view.taskId), [mine.taskId]);
  tasks.close();
});

Deno.test("a 2026-07-28 call becomes a task only when it outlasts afterMs", async () => {
  const tasks = new Tasks({ afterMs: 20 });
  const quick = work();
  quick.finish();
  const answered = await tasks.start(quick.run, { tool: "process_write" });
  assertEquals(answered, { result: REPLY });
  const slow = work();
  const became = await tasks.start(slow.run, { tool: "process_write" });
  assert("task" in became, "a task once afterMs passed");
  // A client that asked for a reply sooner than afterMs gets it, however long it takes.
  const soon = work();
  const asked = tasks.start(soon.run, { tool: "process_write", waitMs: 10 });
  setTimeout(() => soon.finish(), 60);
  assertEquals(await asked, { result: REPLY });
  slow.finish();
  tasks.close();
});

Deno.test("ended() gives up when its signal aborts", async () => {
  const tasks = new Tasks();
  const task = await startNow(tasks, work());
  const giveUp = new AbortController();
  const waiting = tasks.ended(task.taskId, giveUp.signal);
  giveUp.abort(new Error("the client left"));
  await assertStrict.rejects(waiting, /the client left/);
  tasks.close();
});
