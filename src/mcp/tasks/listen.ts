/**
 * Told, not polling (2026-07-28): a `subscriptions/listen` whose filter
 * names `taskIds` (the tasks extension's Task Status Notifications, on
 * SEP-2575's listen) opens a subscription to those tasks of the server's
 * {@link Tasks}: `notifications/subscriptions/acknowledged` first (the ids
 * this server has), then the current state of each, then
 * `notifications/tasks` with the full task (what `tasks/get` would give,
 * its `statusMessage` one line of what happened) at every status change,
 * each stamped with the subscription's id. The SDK's own listen router
 * knows only list changes and resources, so these requests are served here,
 * before it: {@link TaskListenTransport} on a line connection (stdio, a
 * host's client), {@link listenResponse} over HTTP (an SSE stream).
 *
 * A client that did not declare the extension gets `-32021`. The
 * subscription ends when the client cancels it (`notifications/cancelled`,
 * or closing the stream), and with a `complete` result once all its tasks
 * have ended, or when the server stops.
 *
 * @module
 */
import {
  type JSONRPCMessage,
  ProtocolErrorCode,
  SUBSCRIPTION_ID_META_KEY,
  type Transport,
  type TransportSendOptions,
} from "@modelcontextprotocol/server";
import { TASKS } from "../../limits.ts";
import { declaresTasks, missingExtension } from "./modern.ts";
import { hasEnded } from "../../core/steps/task_file.ts";
import type { TaskView } from "./task.ts";
import type { Tasks } from "./tasks.ts";
import { modernTask } from "./wire.ts";

type Id = string | number;

/** A `subscriptions/listen` request that names tasks. */
interface TaskListen {
  jsonrpc: "2.0";
  id: Id;
  method: "subscriptions/listen";
  params: { notifications: { taskIds: unknown }; _meta?: Record<string, unknown> };
}

/** Whether `message` is a `subscriptions/listen` naming `taskIds` (the SDK's router serves the others). */
export function isTaskListen(message: unknown): message is TaskListen {
  const request = message as Partial<TaskListen> | null;
  return request?.method === "subscriptions/listen" && request.id !== undefined &&
    (request.params?.notifications as { taskIds?: unknown } | undefined)?.taskIds !== undefined;
}

/** One open subscription: `end(true)` ends it with the graceful `complete` result. */
export interface Subscription {
  end(graceful: boolean): void;
}

/** At most this many subscriptions (and 2025-11-25 connections) watch a server's tasks at once. */
const WATCHERS_MAX = 1024;

/**
 * Opens the subscription `request` asks for, writing its messages with
 * `send`; or writes the error that refuses it and returns undefined. Once
 * every task it watches has ended (and been told), the subscription ends
 * with the `complete` result, and `onEnd` is called.
 */
export function subscribe(
  tasks: Tasks,
  request: TaskListen,
  send: (message: JSONRPCMessage) => void,
  onEnd: () => void = () => {},
): Subscription | undefined {
  const { id, params } = request;
  const refusal = refuse(params, tasks.watchers);
  if (refusal) {
    send({ jsonrpc: "2.0", id, error: refusal });
    return undefined;
  }
  const asked = params.notifications.taskIds as string[];
  const taskIds = [...new Set(asked)].filter((taskId) => tasks.has(taskId));
  const meta = { [SUBSCRIPTION_ID_META_KEY]: id };
  const notify = (method: string, payload: Record<string, unknown>) =>
    send({ jsonrpc: "2.0", method, params: { ...payload, _meta: meta } });
  let ended = false;
  let unwatch = () => {};
  const subscription = {
    end(graceful: boolean) {
      if (ended) return;
      ended = true;
      unwatch();
      if (graceful) send({ jsonrpc: "2.0", id, result: { resultType: "complete", _meta: meta } });
    },
  };
  notify("notifications/subscriptions/acknowledged", { notifications: { taskIds } });
  // The tasks not ended yet: when none is left, there is nothing more to tell.
  const waiting = new Set(taskIds);
  const tell = (view: TaskView) => {
    notify("notifications/tasks", modernTask(view));
    if (hasEnded(view.status)) waiting.delete(view.taskId);
    if (waiting.size === 0 && !ended) {
      subscription.end(true);
      onEnd();
    }
  };
  unwatch = tasks.watch((view) => {
    if (waiting.has(view.taskId)) tell(view);
  });
  // Where each is now: a task that changed before the listen came is not missed.
  for (const taskId of taskIds) tell(tasks.get(taskId));
  if (taskIds.length === 0) subscription.end(true); // Nothing to tell of, as the SDK's router does.
  return ended ? undefined : subscription;
}

/**
 * Why `params` cannot open a subscription to tasks, when `watchers` watch
 * them already; undefined if they can. Their `_meta` envelope was checked
 * before (stdio.ts, http.ts).
 */
function refuse(params: TaskListen["params"], watchers: number) {
  if (!declaresTasks(params._meta)) return missingExtension("subscriptions/listen with taskIds");
  const { taskIds } = params.notifications;
  if (
    !Array.isArray(taskIds) || taskIds.length > TASKS.max ||
    !taskIds.every((taskId) => typeof taskId === "string")
  ) {
    return {
      code: ProtocolErrorCode.InvalidParams,
      message: `notifications.taskIds must be a list of at most ${TASKS.max} task ids ` +
        '(strings), as tools/call\'s resultType "task" gave them.',
    };
  }
  if (watchers < WATCHERS_MAX) return undefined;
  return {
    code: ProtocolErrorCode.InternalError,
    message: `Subscription limit reached (${WATCHERS_MAX} watch this server's tasks): end one ` +
      "(notifications/cancelled, or close its stream), or poll tasks/get.",
  };
}

/**
 * A line connection's transport with task subscriptions served before the
 * SDK's entry sees them: a `subscriptions/listen` naming tasks, and the
 * `notifications/cancelled` that ends one. Every other message passes.
 */
export class TaskListenTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  readonly #inner: Transport;
  readonly #tasks: Tasks;
  readonly #open = new Map<Id, Subscription>();

  constructor(inner: Transport, tasks: Tasks) {
    this.#inner = inner;
    this.#tasks = tasks;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  start(): Promise<void> {
    this.#inner.onmessage = (message, extra) => {
      if (isTaskListen(message)) return this.#listen(message);
      const cancelled = message as { method?: string; params?: { requestId?: Id } };
      if (cancelled.method === "notifications/cancelled") {
        const subscription = this.#open.get(cancelled.params?.requestId as Id);
        if (subscription) {
          this.#open.delete(cancelled.params!.requestId!);
          return subscription.end(false);
        }
      }
      this.onmessage?.(message, extra);
    };
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onclose = () => {
      this.#endAll(false);
      this.onclose?.();
    };
    return this.#inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#inner.send(message, options);
  }

  async close(): Promise<void> {
    this.#endAll(true);
    await this.#inner.close();
  }

  #listen(request: TaskListen): void {
    const send = (message: JSONRPCMessage) =>
      void this.#inner.send(message).catch((error) => this.onerror?.(error));
    this.#open.get(request.id)?.end(false);
    const subscription = subscribe(this.#tasks, request, send, () => this.#open.delete(request.id));
    if (subscription) this.#open.set(request.id, subscription);
  }

  #endAll(graceful: boolean): void {
    for (const subscription of this.#open.values()) subscription.end(graceful);
    this.#open.clear();
  }
}

/** How often an HTTP subscription's stream says it is alive (a proxy may close a silent one). */
const KEEP_ALIVE_MS = 15_000;

/**
 * The SSE response of an HTTP `subscriptions/listen` naming tasks: open
 * until its client closes it or `closing` aborts (the server stops). A
 * refused one is the JSON-RPC error alone (HTTP 400 for `-32021`).
 */
export function listenResponse(tasks: Tasks, request: TaskListen, closing: AbortSignal): Response {
  let finish = (_graceful: boolean) => {};
  // A stream's start runs as it is made: the subscription writes to it at once.
  let stream!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => void (stream = controller),
    cancel: () => finish(false),
  });
  const encoder = new TextEncoder();
  /** Whether `text` went out: not once the client closed the stream. */
  const write = (text: string) => {
    try {
      stream.enqueue(encoder.encode(text));
      return true;
    } catch {
      return false;
    }
  };
  let refusal: JSONRPCMessage | undefined;
  const subscription = subscribe(tasks, request, (message) => {
    if ("error" in message) refusal = message;
    else write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }, () => finish(true));
  if (refusal) {
    const code = (refusal as { error: { code: number } }).error.code;
    return Response.json(refusal, {
      status: code === ProtocolErrorCode.MissingRequiredClientCapability ? 400 : 200,
    });
  }
  const keepAlive = setInterval(() => {
    if (!write(": keepalive\n\n")) finish(false);
  }, KEEP_ALIVE_MS);
  Deno.unrefTimer(keepAlive);
  finish = (graceful: boolean) => {
    clearInterval(keepAlive);
    subscription?.end(graceful);
    try {
      stream.close();
    } catch {
      // Already closed by its client.
    }
  };
  if (subscription === undefined || closing.aborted) finish(true); // Nothing (more) to tell of.
  else closing.addEventListener("abort", () => finish(true), { once: true });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform" },
  });
}
