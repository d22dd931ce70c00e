/**
 * A subscription to tasks (src/mcp/tasks/listen.ts) in process, on a task
 * table in memory: what it acknowledges, what it tells and when it ends,
 * and whom it refuses.
 *
 * @module
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { assert, assertEquals } from "../helpers/assert.ts";
import { type Message, modernMeta } from "../../dev/raw_lines.ts";
import { isTaskListen, subscribe } from "../../src/mcp/tasks/listen.ts";
import { Tasks } from "../../src/mcp/tasks/tasks.ts";

const TASKS_ON = { extensions: { "io.modelcontextprotocol/tasks": {} } };

/** A `subscriptions/listen` for `taskIds`, its client declaring `capabilities`. */
function listen(taskIds: unknown, capabilities: Record<string, unknown> = TASKS_ON) {
  const request = {
    jsonrpc: "2.0",
    id: 5,
    method: "subscriptions/listen",
    params: { notifications: { taskIds }, _meta: modernMeta(capabilities) },
  };
  assert(isTaskListen(request));
  return request;
}

/** A task whose work ends when `finish` is called. */
async function started(tasks: Tasks) {
  const { promise, resolve } = Promise.withResolvers<CallToolResult>();
  const start = await tasks.start(() => promise, { tool: "process_write" }, "now");
  assert("task" in start);
  return { taskId: start.task.taskId, finish: () => resolve({ content: [] }) };
}

Deno.test("a subscription acknowledges the tasks it has, tells each change, then ends", async () => {
  const tasks = new Tasks();
  const one = await started(tasks);
  const sent: Message[] = [];
  let ended = false;
  const subscription = subscribe(tasks, listen([one.taskId, "gone"]), (m) => sent.push(m), () => {
    ended = true;
  });
  assert(subscription, "open");
  assertEquals(sent[0].method, "notifications/subscriptions/acknowledged");
  assertEquals(sent[0].params.notifications.taskIds, [one.taskId]);
  assertEquals([sent[1].method, sent[1].params.status], ["notifications/tasks", "working"]);
  assertEquals(sent[1].params._meta["io.modelcontextprotocol/subscriptionId"], 5);
  one.finish();
  await tasks.ended(one.taskId);
  assertEquals(sent[2].params.status, "completed");
  assertEquals(sent[3].result.resultType, "complete");
  assert(ended, "told it ended");
  assertEquals(tasks.watchers, 0);
  tasks.close();
});

Deno.test("a subscription of no known task ends at once", () => {
  const tasks = new Tasks();
  const sent: Message[] = [];
  assertEquals(subscribe(tasks, listen(["gone"]), (m) => sent.push(m)), undefined);
  assertEquals(sent.map((m) => m.method ?? m.result.resultType), [
    "notifications/subscriptions/acknowledged",
    "complete",
  ]);
  tasks.close();
});

Deno.test("a listen is refused without the extension (-32021) or with bad taskIds", () => {
  const tasks = new Tasks();
  for (const [request, code] of [[listen([], {}), -32021], [listen("t1"), -32602]] as const) {
    const sent: Message[] = [];
    assertEquals(subscribe(tasks, request, (m) => sent.push(m)), undefined);
    assertEquals(sent.map((m) => m.error?.code), [code]);
  }
  tasks.close();
});
