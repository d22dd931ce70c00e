/**
 * A `tools/call` as a task: whether it is one ({@link taskMode}: 2026-07-28's
 * extension declared, or 2025-11-25's `params.task`), and running it on the
 * server's {@link Tasks} ({@link runAsTask}) with the questions its client
 * can be asked (asker.ts: an `inputRequests` round on 2026-07-28, an
 * elicitation request tied to the task on 2025-11-25), answered in its
 * revision's shape.
 *
 * @module
 */
import {
  type CallToolResult,
  RELATED_TASK_META_KEY,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { askingWay } from "../asker.ts";
import { clientCapabilities, envelope } from "../envelope.ts";
import { elicitationAsker } from "../secret_prompt.ts";
import type { ToolContext } from "../tools/tool.ts";
import { refuseTask } from "./legacy.ts";
import { declaresTasks } from "./modern.ts";
import { type PromptAt, TaskQuestions, TaskRounds } from "./questions.ts";
import { TASK_TOOLS } from "./task_input.ts";
import type { Tasks, TaskWork } from "./tasks.ts";
import { legacyTask, modernTask } from "./wire.ts";

/**
 * How the call `params` of tool `tool` runs as a task: `"later"` (2026-07-28,
 * a client that declared the extension), `"now"` (2025-11-25, `params.task`
 * given), or not at all; a task asked of a tool that is never one is refused.
 */
export function taskMode(
  tool: string,
  params: { task?: unknown },
  ctx: ServerContext,
  modern: boolean,
): "now" | "later" | undefined {
  if (modern) return TASK_TOOLS.has(tool) && declaresTasks(envelope(ctx)) ? "later" : undefined;
  if (params.task === undefined) return undefined;
  if (!TASK_TOOLS.has(tool)) throw refuseTask(tool);
  return "now";
}

/**
 * Runs `work` (tool `tool`'s, on `args`) as a task of `tasks` `when` says,
 * for the call `ctx` of `server`'s client; the call's answer.
 */
export async function runAsTask(
  when: "now" | "later",
  work: TaskWork,
  call: { tool: string; args: { id?: number; wait_ms?: number } },
  on: { tasks: Tasks; context: ToolContext; server: Server; ctx: ServerContext },
): Promise<CallToolResult> {
  const { tasks, context, server, ctx } = on;
  const modern = when === "later";
  // How the person is asked, chosen once: the task's inputRequests, or an elicitation tied to it.
  const way = askingWay(modern, clientCapabilities(server, ctx)?.elicitation, true);
  const prompt = promptAt(context);
  const started = await tasks.start(work, {
    tool: call.tool,
    processId: call.args.id,
    waitMs: call.args.wait_ms,
    lastLine: (id) => context.manager.lastLine(id),
    owner: modern ? undefined : server,
    questions: way &&
      ((listener, taskId) => {
        const asker = way.by === "task" ? new TaskRounds(way.url) : {
          how: "an elicitation request tied to this task",
          ...elicitationAsker(server, way.url, { meta: { [RELATED_TASK_META_KEY]: { taskId } } }),
        };
        return new TaskQuestions(asker, prompt, listener);
      }),
  }, when);
  if ("result" in started) return started.result;
  // The call's answer is the revision's CreateTaskResult.
  const created: Record<string, unknown> = modern
    ? { resultType: "task", ...modernTask(started.task) }
    : { task: legacyTask(started.task) };
  return created as CallToolResult;
}

/** What a task's question says it is for, and how its answer is typed. */
function promptAt(context: ToolContext): PromptAt {
  return {
    label: (id) => {
      const line = context.manager.lastLine(id).trim();
      return `${line ? line.slice(0, 80) : "a password"} (process ${id})`;
    },
    type: async (id, secret) => {
      await context.manager.write(id, { secret, keys: ["Enter"], wait: "none" });
    },
  };
}
