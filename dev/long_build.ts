/**
 * A scripted agent that runs one long build through Portal in each shape a
 * client speaks for long work, and what it cost: the calls the model made
 * (the goal: one), the protocol messages both ways, the characters of the
 * reply the model reads, and the delay from the build's end to the client
 * knowing (the build writes the time it ends, `date +%s%N`, just before it
 * exits). The shapes:
 *
 * - `tasks-2025`: MCP 2025-11-25 tasks (what VS Code speaks), the SDK v1
 *   client's own runtime: `experimental.tasks.callToolStream` (it polls
 *   `tasks/get`); told by `notifications/tasks/status`.
 * - `tasks-2026-listen`: MCP 2026-07-28's tasks extension in raw lines (no
 *   SDK client runs it): the call becomes a task, the client opens
 *   `subscriptions/listen` on it and is told by `notifications/tasks`.
 * - `progress`: a plain `tools/call` (`wait: "exit"`) with a progress token,
 *   kept alive by `notifications/progress` (`resetTimeoutOnProgress`).
 *
 * bench/long_build.ts runs it on a 90 s build; tests/e2e/long_build_test.ts
 * on a short one.
 *
 * @module
 */
import type { TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolResultSchema,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type TaskStatusNotification,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Portal } from "./portal_client.ts";
import { jsonLine, spawnServer } from "./raw_lines.ts";
import { MODERN } from "./modern_client.ts";
import { tempDir } from "./temp_dir.ts";

/** The client shapes of long work. */
export const SHAPES = ["tasks-2025", "tasks-2026-listen", "progress"] as const;
export type Shape = typeof SHAPES[number];

/** What one run cost. */
export interface BuildRun {
  shape: Shape;
  /** Tool calls the model made (tasks/* and listens are the client's, not the model's). */
  modelCalls: number;
  /** JSON-RPC messages, both ways, from the call to the reply in hand. */
  messages: number;
  /** Characters of the reply's text, what the model reads. */
  replyChars: number;
  /** From the build's end to the client knowing it ended (ms). */
  delayMs: number;
  /** The reply's text (it names the exit code and the last line). */
  text: string;
}

/** A build of `seconds` seconds: a line a second, then its end time in `endFile`, then exit 0. */
function build(seconds: number, endFile: string) {
  return {
    command: "sh",
    args: [
      "-c",
      `i=0; while [ $i -lt ${seconds} ]; do echo "compiling unit $i"; sleep 1; i=$((i+1)); done; ` +
      `echo "BUILD OK"; date +%s%N > '${endFile}'; exit 0`,
    ],
    wait: "exit",
    // Beyond the build, within the synchronous cap: one call is enough in every shape.
    wait_ms: seconds * 1000 + 60_000,
  };
}

/** Now, in ms since the epoch, to the microsecond. */
const now = () => performance.timeOrigin + performance.now();

/** The build's end, in ms since the epoch, from its file. */
async function endedAt(endFile: string): Promise<number> {
  return Number(BigInt((await Deno.readTextFile(endFile)).trim()) / 1000n) / 1000;
}

/** Runs a build of `seconds` in `shape`; what it cost. */
export async function runBuild(shape: Shape, seconds: number): Promise<BuildRun> {
  await using dir = await tempDir("portal-long-build-");
  const endFile = `${dir.path}/build.end`;
  const args = build(seconds, endFile);
  const run = shape === "tasks-2026-listen"
    ? await listening(dir.path, args)
    : await sdkClient(shape, args);
  const delayMs = run.knownAt - await endedAt(endFile);
  return {
    shape,
    modelCalls: run.modelCalls,
    messages: run.messages,
    replyChars: run.text.length,
    delayMs,
    text: run.text,
  };
}

interface Seen {
  modelCalls: number;
  messages: number;
  text: string;
  /** When the client knew the build had ended (ms since the epoch). */
  knownAt: number;
}

/** One tool call as a shape makes it: the reply, and when the client knew of it. */
type Once = (
  name: string,
  args: Record<string, unknown>,
) => Promise<{ result: unknown; knownAt: number }>;

/**
 * The agent: starts the build and waits for its end in one call; a reply
 * whose program still runs (its wait ran out) is followed by
 * `process_read_new` until the end, each a call of the model.
 */
async function agent(once: Once, args: Record<string, unknown>) {
  let modelCalls = 1;
  let reply = await once("process_start", args);
  for (;;) {
    const state = structured(reply.result);
    if (state.state !== "running") break;
    modelCalls++;
    reply = await once("process_read_new", { id: state.id, wait: "exit", wait_ms: args.wait_ms });
  }
  return { modelCalls, text: textOf(reply.result), knownAt: reply.knownAt };
}

/** The SDK v1 client: 2025-11-25 tasks, or a plain call kept alive by progress. */
async function sdkClient(shape: Shape, args: Record<string, unknown>): Promise<Seen> {
  await using portal = await Portal.start({ noHost: true });
  const { client, transport } = portal;
  let messages = 0;
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options?: TransportSendOptions) => (
    messages++, send(message, options)
  );
  const receive = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => (
    messages++, receive(message, extra)
  );
  let toldAt: number | undefined;
  client.setNotificationHandler(TaskStatusNotificationSchema, (note: TaskStatusNotification) => {
    if (note.params.status === "completed") toldAt ??= now();
  });
  const once: Once = async (name, args) => {
    const call = { name, arguments: args };
    if (shape === "progress") {
      const result = await client.callTool(call, CallToolResultSchema, {
        onprogress: () => {},
        resetTimeoutOnProgress: true,
        timeout: 60_000,
      });
      return { result, knownAt: now() };
    }
    toldAt = undefined;
    let result: unknown;
    let resultAt = 0;
    const stream = client.experimental.tasks.callToolStream(call, CallToolResultSchema, {
      task: { ttl: 600_000 },
    });
    for await (const message of stream) {
      if (message.type === "error") throw message.error;
      if (message.type === "result") [result, resultAt] = [message.result, now()];
    }
    // Told by the status notification; the stream's poll brings the reply a moment later.
    return { result, knownAt: toldAt ?? resultAt };
  };
  return { ...await agent(once, args), messages };
}

/** The structured reply of a tool: the program's state and its id. */
function structured(result: unknown): { state?: string; id?: number } {
  return (result as { structuredContent?: { state?: string; id?: number } }).structuredContent ??
    {};
}

/** The text block of a tool's reply. */
function textOf(result: unknown): string {
  const content = (result as { content?: { text?: string }[] }).content;
  return content?.[0]?.text ?? "";
}

/** 2026-07-28 in raw lines: the call, its task, a listen on it, told when it ends. */
async function listening(dir: string, args: Record<string, unknown>): Promise<Seen> {
  const door = await spawnServer(dir, { noHost: true });
  const stdin = door.stdin.getWriter();
  const meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "long-build-agent", version: "0" },
    "io.modelcontextprotocol/clientCapabilities": {
      extensions: { "io.modelcontextprotocol/tasks": {} },
    },
  };
  let messages = 0;
  const send = (message: Record<string, unknown>) => {
    messages++;
    return stdin.write(jsonLine({ jsonrpc: "2.0", ...message }));
  };
  const lines = door.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  const next = async (): Promise<Record<string, unknown>> => {
    for (;;) {
      const end = pending.indexOf("\n");
      if (end >= 0) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 1);
        messages++;
        return JSON.parse(line);
      }
      const { value, done } = await lines.read();
      if (done) throw new Error("the server ended before the build did");
      pending += value;
    }
  };
  let id = 0;
  const once: Once = async (name, args) => {
    const callId = ++id;
    await send({
      id: callId,
      method: "tools/call",
      params: { name, arguments: args, _meta: meta },
    });
    let answer = await next();
    while (answer.id !== callId) answer = await next();
    const created = answer.result as { resultType: string; taskId?: string };
    if (created.resultType !== "task") return { result: created, knownAt: now() };
    await send({
      id: ++id,
      method: "subscriptions/listen",
      params: { notifications: { taskIds: [created.taskId] }, _meta: meta },
    });
    for (;;) {
      const message = await next();
      const params = message.params as { status?: string; result?: unknown } | undefined;
      if (message.method !== "notifications/tasks" || params?.status === "working") continue;
      if (params?.status !== "completed") throw new Error(`the build's task is ${params?.status}`);
      return { result: params.result, knownAt: now() };
    }
  };
  try {
    return { ...await agent(once, args), messages };
  } finally {
    await stdin.close().catch(() => {});
    await lines.cancel().catch(() => {});
    await door.status;
  }
}
