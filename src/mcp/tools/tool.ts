/**
 * How a Portal tool is declared (schema + handler) and registered on an MCP
 * server: results go out as `structuredContent` and as a text block for the
 * model (reply_text.ts: step replies and screens as plain text); a
 * {@link PortalError} becomes a tool error (`isError`) the agent can act on,
 * and any other failure is also logged as an error with its stack.
 * Every call is logged, by its tool and process id only (arguments can hold
 * secrets): `debug` when it succeeds, `info` when the caller's mistake made
 * it fail. The request's cancellation (`notifications/cancelled`) reaches the
 * handler as an AbortSignal, a progress token as a callback that sends
 * `notifications/progress` every second of a wait (the time waited, the
 * program's state and last line: a client that hears nothing for minutes
 * may give up on the call), and a client that can ask its person as a
 * callback that does (`secret_prompt`, asker.ts: the way chosen once per
 * call): the core takes them without knowing MCP, and answers a question
 * the call's reply must put (2026-07-28's rounds) as a value.
 *
 * Arguments are checked at the door: the schemas' types and limits, and no
 * argument the tool does not know (`additionalProperties: false`), each
 * refused in one line by `invalid_params.ts`; and no lone surrogate in any
 * string (it is not text: UTF-8 cannot carry it). Every error reply is
 * {@link bounded}.
 *
 * @module
 */
import type {
  CallToolResult,
  Server,
  ServerContext,
  ToolAnnotations,
} from "@modelcontextprotocol/server";
import type { z } from "zod";
import {
  bounded,
  ERROR_META_KEY,
  type ErrorData,
  type ErrorKind,
  PortalError,
  quote,
} from "../../errors.ts";
import type { ProcessManager } from "../../core/process/manager.ts";
import type { ProgramRegistry } from "../../core/registry/program_registry.ts";
import type { Remotes } from "../../remote/remotes.ts";
import type { Target } from "../../remote/target.ts";
import { type CallControl, type NeedsInput, needsInput } from "../../core/steps/step.ts";
import { PROGRESS_STATE_META } from "../../core/model/schema.ts";
import type { SessionLog } from "../logging.ts";
import { type Asker, askingWay } from "../asker.ts";
import { clientCapabilities, speaksModern } from "../envelope.ts";
import { elicitationAsker } from "../secret_prompt.ts";
import { roundsAsker } from "../secret_rounds.ts";
import { replyText } from "./reply_text.ts";

/** What a tool handler may use. */
export interface ToolContext {
  manager: ProcessManager;
  registry: ProgramRegistry;
  /** Where a call on another machine's process goes (docs/remote.md). */
  remote?: Remotes;
  /** The watch page's link for this client's processes (process `id` first, if given). */
  watch?: { link(id?: number): string };
}

/** One tool: its agent-facing text, its schemas and its handler. */
export interface PortalTool<In extends z.ZodObject, Out extends z.ZodObject> {
  name: string;
  /** What the call acts on, wherever it runs (as tmux's command table declares `.target`). */
  target: Target;
  title: string;
  description: string;
  input: In;
  output: Out;
  /** Every hint is stated, so no client falls back to a default. */
  annotations: Required<Omit<ToolAnnotations, "title">>;
  /** Its reply; or, when the person is asked by the call's reply, the question. */
  run(
    context: ToolContext,
    args: z.infer<In>,
    control: CallControl,
  ): z.infer<Out> | NeedsInput | Promise<z.infer<Out> | NeedsInput>;
}

/** The hints of a tool that only looks at this server's own state. */
export const READ_ONLY: PortalTool<z.ZodObject, z.ZodObject>["annotations"] = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Any tool, whatever its schemas: the element type of the tool list. */
// deno-lint-ignore no-explicit-any
export type AnyTool = PortalTool<any, any>;

/** Declares a tool; the identity function, there for type inference. */
export function defineTool<In extends z.ZodObject, Out extends z.ZodObject>(
  tool: PortalTool<In, Out>,
): PortalTool<In, Out> {
  return tool;
}

/**
 * How the call `ctx` (of `server`, on `args`) asks the person for a secret:
 * chosen once, from what its client speaks (asker.ts); none if it cannot.
 */
function callAsker(server: Server, ctx: ServerContext, args: unknown): Asker | undefined {
  const modern = speaksModern(server);
  const way = askingWay(modern, clientCapabilities(server, ctx)?.elicitation, false);
  if (way === undefined) return undefined;
  return way.by === "rounds"
    ? roundsAsker(ctx, args, way.url)
    : elicitationAsker(server, way.url, { requestId: ctx.mcpReq.id });
}

/**
 * The request's cancellation, its `asker` as the way to ask the person for
 * a secret, and, if the client gave a token, progress notifications.
 */
function callControl(ctx: ServerContext, asker?: Asker, lastLine?: () => string): CallControl {
  const token = ctx.mcpReq._meta?.progressToken;
  const { signal } = ctx.mcpReq;
  const askSecret = asker && ((label: string) => asker.ask(label, signal));
  const control = { signal, askSecret };
  if (token === undefined) return control;
  return {
    ...control,
    onProgress: ({ elapsedMs, totalMs, state }) => {
      ctx.mcpReq.notify({
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress: elapsedMs,
          total: totalMs,
          message: `waited ${(elapsedMs / 1000).toFixed(0)} s of ${totalMs / 1000} s; ${state}` +
            shownLine(lastLine),
          _meta: { [PROGRESS_STATE_META]: state },
        },
      }).catch(() => {/* The client is gone; the wait ends with the call. */});
    },
  };
}

/**
 * Runs `tool` on arguments its input schema accepted, for the call `ctx`
 * of `server`'s client: its result, or its failure as a tool error; each
 * call logged to `log`.
 */
export async function callTool(
  tool: AnyTool,
  args: unknown,
  call: {
    context: ToolContext;
    server: Server;
    ctx: ServerContext;
    log: SessionLog;
    /** In place of the request's own (a task's: its cancellation, its progress). */
    control?: Pick<CallControl, "signal" | "onProgress">;
  },
): Promise<CallToolResult> {
  const { context, server, ctx, log } = call;
  const requestId = ctx.mcpReq.id;
  const id = (args as { id?: unknown } | undefined)?.id;
  const lastLine = typeof id === "number" ? () => context.manager.lastLine(id) : undefined;
  const asker = callAsker(server, ctx, args);
  const control = { ...callControl(ctx, asker, lastLine), ...call.control };
  try {
    checkText(args, "");
    const run = async () => await tool.run(context, args, control) as Record<string, unknown>;
    const result = context.remote
      ? await context.remote.route(
        tool,
        args as Record<string, unknown>,
        context.manager.session,
        control,
        run,
      )
      : await run();
    // A question for the person (2026-07-28's rounds): the call answers with it; nothing was done.
    if (needsInput(result) && asker?.question) {
      return await asker.question(result.needsInput.secret);
    }
    log.log("debug", "tools", `${callName(tool, args)}: ok`, requestId);
    return {
      content: [{ type: "text", text: replyText(result, tool.name === "process_start") }],
      structuredContent: result,
    };
  } catch (error) {
    if (error instanceof PortalError) {
      const message = bounded(error.message);
      log.log("info", "tools", `${callName(tool, args)} refused: ${message}`, requestId);
      return errorResult(message, error.kind, error.data);
    }
    // The client cancelled the call: the SDK sends no reply, and nothing went wrong.
    if (control.signal?.aborted) return errorResult("Cancelled.", "cancelled");
    // Not a mistake of the caller: a bug or a failing system call, worth its stack.
    log.log(
      "error",
      "tools",
      bounded(`${tool.name} failed: ${(error as Error)?.stack ?? error}`),
      requestId,
    );
    const message = bounded(
      `Internal error in ${tool.name}: ${(error as Error)?.message ?? error}`,
    );
    return errorResult(message, "internal");
  }
}

/**
 * A tool error: its message for the model, its kind and data for code
 * (`_meta["io.portal/error"]`): a {@link PortalError}'s, or `cancelled` (the
 * client cancelled the call) and `internal` (a bug or a failing system call).
 */
export function errorResult(
  text: string,
  kind: ErrorKind | "cancelled" | "internal",
  data: ErrorData = {},
): CallToolResult {
  return {
    content: [{ type: "text", text }],
    isError: true,
    _meta: { [ERROR_META_KEY]: { kind, ...data } },
  };
}

/** `; last line: "…"`, the program's, for a progress message; nothing when there is none. */
export function shownLine(lastLine: (() => string) | undefined): string {
  try {
    const line = lastLine?.().trim();
    return line ? `; last line: ${JSON.stringify(line)}` : "";
  } catch {
    return ""; // The process is gone: its line with it.
  }
}

/** Each tool's input schema with unknown arguments refused, made once for every session. */
const strictInputs = new Map<AnyTool, ReturnType<AnyTool["input"]["strict"]>>();

export function strictInput(tool: AnyTool): ReturnType<AnyTool["input"]["strict"]> {
  const schema = strictInputs.get(tool) ?? tool.input.strict();
  strictInputs.set(tool, schema);
  return schema;
}

/**
 * Throws when a string in `value` (an argument, an element, a key) holds a
 * lone surrogate: it is not text, and UTF-8 would silently turn it into
 * U+FFFD on its way to a program or the records.
 */
function checkText(value: unknown, path: string): void {
  const check = (text: string, where: string) => {
    if (text.isWellFormed()) return;
    // With the u flag a pair is one code point: only a lone surrogate is of category Cs.
    const unit = /\p{Cs}/u.exec(text)![0].charCodeAt(0);
    throw new PortalError(
      `${where} holds a lone surrogate (U+${unit.toString(16).toUpperCase()}), which is not ` +
        "text: UTF-8 cannot carry it. Send well-formed Unicode (a JSON \\u escape of a " +
        "surrogate must come in a high-low pair).",
    );
  };
  if (typeof value === "string") check(value, path);
  else if (Array.isArray(value)) value.forEach((item, i) => checkText(item, `${path}[${i}]`));
  else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      check(key, `a name in ${path || "the arguments"}`);
      checkText(item, path === "" ? key : `${path}[${quote(key)}]`);
    }
  }
}

/** A call as the log names it: the tool, and the process it concerns if any. */
function callName(tool: AnyTool, args: unknown): string {
  const id = (args as { id?: unknown } | undefined)?.id;
  return typeof id === "number" ? `${tool.name} (process ${id})` : tool.name;
}
