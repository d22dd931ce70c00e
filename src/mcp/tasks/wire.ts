/**
 * A task as each revision's wire shows it.
 *
 * - 2026-07-28 (the extension): `DetailedTask`, the task's fields with
 *   `ttlMs` and `pollIntervalMs`, its `result`, `error` or `inputRequests`
 *   inline: `tasks/get` and `notifications/tasks` give the same.
 * - 2025-11-25 (SEP-1732): `Task`, with `ttl` and `pollInterval`; the reply
 *   comes apart, from `tasks/result`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { legacyTask, modernTask } from "./wire.ts";
 *
 * const view = {
 *   taskId: "t", status: "working" as const, statusMessage: "waiting",
 *   createdAt: "2026-01-01T00:00:00.000Z", lastUpdatedAt: "2026-01-01T00:00:00.000Z",
 * };
 * assert.equal(modernTask(view).ttlMs, null);
 * assert.equal(legacyTask(view).pollInterval, 2000);
 * ```
 * @module
 */
import { TASKS } from "../../limits.ts";
import { hasEnded } from "../../core/steps/task_file.ts";
import type { TaskView } from "./task.ts";

/** 2026-07-28's `DetailedTask` (`tasks/get`, `notifications/tasks`, and `resultType: "task"`). */
export function modernTask(view: TaskView): Record<string, unknown> {
  return {
    ...view,
    ttlMs: hasEnded(view.status) ? TASKS.keptMs : null,
    pollIntervalMs: TASKS.pollMs,
  };
}

/** 2025-11-25's `Task` (`tasks/get`, `tasks/list`, `tasks/cancel`, `notifications/tasks/status`). */
export function legacyTask(view: TaskView): Record<string, unknown> {
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt } = view;
  return {
    taskId,
    status,
    statusMessage,
    createdAt,
    lastUpdatedAt,
    ttl: TASKS.keptMs,
    pollInterval: TASKS.pollMs,
  };
}
