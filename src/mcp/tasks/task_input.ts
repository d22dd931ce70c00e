/**
 * Which tools' calls may be tasks ({@link TASK_TOOLS}: those that wait),
 * and what such a tool takes when its call is a task: its own input schema, with
 * `wait_ms` allowed up to {@link TASKS}.waitMaxMs (24 h) instead of the
 * synchronous cap: a task's client is not held waiting for the reply.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TOOLS } from "../tools/index.ts";
 * import { taskInput } from "./task_input.ts";
 *
 * const write = TOOLS.find((tool) => tool.name === "process_write")!;
 * assert.ok(taskInput(write).safeParse({ id: 1, wait_ms: 3_600_000 }).success);
 * assert.ok(!taskInput(write).safeParse({ id: 1, wait_ms: 90_000_000 }).success);
 * ```
 * @module
 */
import { z } from "zod";
import { TASKS } from "../../limits.ts";
import { type AnyTool, strictInput } from "../tools/tool.ts";

/** The tools whose call may become a task: those that wait. */
export const TASK_TOOLS: ReadonlySet<string> = new Set([
  "process_write",
  "process_read_new",
  "process_start",
]);

const inputs = new Map<AnyTool, ReturnType<typeof strictInput>>();

/** `tool`'s input schema for a call made a task (made once per tool). */
export function taskInput(tool: AnyTool): ReturnType<typeof strictInput> {
  let schema = inputs.get(tool);
  if (schema === undefined) {
    const waitMs = tool.input.shape.wait_ms as z.ZodType | undefined;
    schema = waitMs === undefined ? strictInput(tool) : strictInput(tool).extend({
      wait_ms: z.number().int().min(0).max(TASKS.waitMaxMs).optional()
        .meta(waitMs.meta() ?? {}),
    });
    inputs.set(tool, schema);
  }
  return schema;
}
