/**
 * Arguments a tool cannot take, refused before it runs, in one line that
 * names each wrong argument and says what it must be (`process_write: "id"
 * must be an integer (got a string)`), {@link bounded} like every error. No
 * string an agent sent comes back but an enum's, by a short prefix: an
 * argument can hold a secret.
 *
 * Which kind of error, as MCP 2025-11-25 says (SEP-1303): a `tools/call`
 * whose request is malformed (its `arguments` a string, null, an array, a
 * number) or names no tool is a protocol error, JSON-RPC `-32602` Invalid
 * params; arguments that fail the tool's input schema (a wrong type, a
 * missing or unknown argument, a value out of range) are a tool error
 * (`isError`), which every client hands to the model so it can correct
 * itself. Left to the SDK, the first gets zod's issues as JSON, the second a
 * dump of zod's messages.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { describeIssues } from "./invalid_params.ts";
 *
 * const schema = z.object({ id: z.number().int().min(1), wait: z.enum(["ready", "none"]) }).strict();
 * const args = { id: 1.5, wait: "redy", bogus: 1 };
 * assert.equal(
 *   describeIssues(schema.safeParse(args, { reportInput: true }).error!.issues, ["id", "wait"]),
 *   '"id" must be an integer (got 1.5); "wait" must be "ready" or "none" (got "redy"); ' +
 *     '"bogus" is not an argument (they are: id, wait)',
 * );
 * const missing = {};
 * assert.equal(
 *   describeIssues(schema.safeParse(missing, { reportInput: true }).error!.issues, ["id", "wait"]),
 *   '"id" is required (a number); "wait" is required ("ready" or "none")',
 * );
 * ```
 * @module
 */
import { type CallToolResult, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { z } from "zod";
import { bounded, quote } from "../../errors.ts";
import { type AnyTool, errorResult, strictInput } from "./tool.ts";

type Issue = z.core.$ZodIssue;
type Path = readonly PropertyKey[];

/**
 * A request Portal refuses as a whole: the SDK answers it with this code and
 * message as they are.
 */
export class InvalidParams extends Error {
  readonly code = ProtocolErrorCode.InvalidParams;
}

/** What a `tools/call` request must be, before its arguments are the tool's business. */
const CALL = z.object({
  params: z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() }),
});

/**
 * Throws {@link InvalidParams} unless `request` is a well-formed `tools/call`
 * of one of `tools`: to be run before the SDK reads it, whose own refusal
 * quotes zod's issues as JSON.
 */
export function screenCallRequest(request: unknown, tools: ReadonlyMap<string, AnyTool>): void {
  const name = (request as { params?: { name?: unknown } }).params?.name;
  const label = typeof name === "string" ? (tools.has(name) ? name : quote(name)) : "tools/call";
  const call = CALL.safeParse(request, { reportInput: true });
  if (!call.success) {
    // Paths from the request's params: "arguments", "name".
    const issues = call.error.issues.map((issue: Issue) => ({
      ...issue,
      path: issue.path[0] === "params" ? issue.path.slice(1) : issue.path,
    }));
    throw new InvalidParams(bounded(`${label}: ${describeIssues(issues, [])}`));
  }
  if (!tools.has(call.data.params.name)) {
    throw new InvalidParams(
      bounded(`Unknown tool ${label}; Portal's tools: ${[...tools.keys()].join(", ")}.`),
    );
  }
}

/**
 * The arguments `tool` takes, parsed; or, when its input schema (or
 * `schema`, a task's) refuses them, the tool error that says why in one line.
 */
export function screenArguments(
  tool: AnyTool,
  args: unknown,
  schema: z.ZodType = strictInput(tool),
): { args: unknown } | { refused: CallToolResult; line: string } {
  const parsed = schema.safeParse(args ?? {}, { reportInput: true });
  if (parsed.success) return { args: parsed.data };
  const line = describeIssues(parsed.error.issues, Object.keys(tool.input.shape));
  const text = bounded(`${tool.name}: ${line}`);
  return { refused: errorResult(text, "invalid"), line: bounded(line) };
}

/**
 * `issues` (with their input: `reportInput`) in one line: a sentence for each
 * wrong argument (the tightest of the bounds it breaks), `names` the
 * arguments there are.
 */
export function describeIssues(issues: readonly Issue[], names: readonly string[]) {
  const kept = new Map<string, Issue>();
  for (const issue of issues) {
    const at = pathName(issue.path);
    const seen = kept.get(at);
    if (seen === undefined || tighter(issue, seen)) kept.set(at, issue);
  }
  return [...kept.values()].map((issue) => sentence(issue, [], names)).join("; ");
}

/** One bound beside another on the same value: zod adds the safe-integer range to a tighter one. */
function tighter(issue: Issue, than: Issue): boolean {
  if (issue.code === "too_big" && than.code === "too_big") return issue.maximum < than.maximum;
  if (issue.code === "too_small" && than.code === "too_small") {
    return issue.minimum > than.minimum;
  }
  return false;
}

function sentence(issue: Issue, prefix: Path, names: readonly string[]): string {
  const path = [...prefix, ...issue.path];
  const got = issue.input;
  const subject = quotedPath(path);
  switch (issue.code) {
    case "invalid_type":
      return wrongValue(subject, kind(issue.expected), shown(got), got);
    case "invalid_value":
      return wrongValue(subject, alternatives(issue.values.map(literal)), literal(got), got);
    case "unrecognized_keys": {
      const keys = issue.keys.map(quote).join(", ");
      const which = issue.keys.length === 1 ? "is not an argument" : "are not arguments";
      const there = path.length > 0
        ? ""
        : names.length === 0
        ? " (this tool takes none)"
        : ` (they are: ${names.join(", ")})`;
      return `${keys} ${which}${path.length > 0 ? ` of ${subject}` : ""}${there}`;
    }
    case "invalid_union": {
      // The branch the value's type chose, if one did; else the types the branches take.
      const chosen = issue.errors.find((branch) =>
        !branch.every((inner) => inner.code === "invalid_type" && inner.path.length === 0)
      );
      if (chosen) return chosen.map((inner) => sentence(inner, path, names)).join("; ");
      const kinds = issue.errors.map((branch) =>
        kind((branch[0] as { expected: string }).expected)
      );
      return wrongValue(subject, alternatives(kinds), shown(got), got);
    }
    case "invalid_key": {
      const key = String(path.at(-1));
      const inner = issue.issues[0];
      const name = `a name in ${quotedPath(path.slice(0, -1))} (${quote(key)})`;
      return inner === undefined ? `${name} is not allowed` : rule(name, inner, key);
    }
    default:
      return rule(subject, issue, got);
  }
}

/** A value of the wrong kind, or none where one is required. */
function wrongValue(subject: string, expected: string, shownGot: string, got: unknown): string {
  if (got === undefined) return `${subject} is required (${expected})`;
  return `${subject} must be ${expected} (got ${shownGot})`;
}

/** A check's own words (a refine's "must not contain NUL characters"), or zod's. */
function rule(subject: string, issue: Issue, got: unknown): string {
  if (issue.code === "too_big" || issue.code === "too_small") {
    return `${subject} must be ${bound(issue)} (got ${measure(issue.origin, got)})`;
  }
  return issue.message.startsWith("must ")
    ? `${subject} ${issue.message}`
    : `${subject}: ${issue.message}`;
}

function bound(issue: Issue & { code: "too_big" | "too_small" }): string {
  const big = issue.code === "too_big";
  const limit = big ? issue.maximum : issue.minimum;
  const unit = issue.origin === "string"
    ? " characters long"
    : issue.origin === "array" || issue.origin === "set"
    ? " items"
    : "";
  const relation = issue.inclusive === false
    ? (big ? "less than" : "more than")
    : (big ? "at most" : "at least");
  return `${relation} ${limit}${unit}`;
}

function measure(origin: string, got: unknown): string {
  if (origin === "string" && typeof got === "string") return `${got.length}`;
  if (Array.isArray(got)) return `${got.length}`;
  return shown(got);
}

/** What a value is, for an error: a string by its type only (it can be a secret). */
function shown(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return "a string";
    case "object":
      return "an object";
    case "undefined":
      return "nothing";
    default:
      return String(value);
  }
}

/** What zod expects, in words. */
function kind(expected: string): string {
  const words: Record<string, string> = {
    int: "an integer",
    boolean: "true or false",
    array: "an array",
    object: "an object",
    record: "an object",
  };
  return words[expected] ?? `a ${expected}`;
}

/** An enum's value, or a value given for one: a string by a short prefix. */
function literal(value: unknown): string {
  return typeof value === "string" ? quote(value) : shown(value);
}

/** `a`, `a or b`, `a, b or c`. */
function alternatives(words: readonly string[]): string {
  if (words.length < 2) return words.join("");
  return `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
}

/** `id`, `args[0]`, `env.PATH`, `env["a b"]`: an argument as a program would write it. */
function pathName(path: Path): string {
  return path.map((key, i) => {
    if (typeof key === "number") return `[${key}]`;
    const text = String(key);
    const plain = /^[A-Za-z_]\w*$/.test(text) && text.length <= 40;
    if (i === 0 && plain) return text;
    return plain ? `.${text}` : `[${quote(text)}]`;
  }).join("");
}

/** {@link pathName} in quotes (`"id"`), unless it quotes a key itself; "the arguments" for none. */
function quotedPath(path: Path): string {
  if (path.length === 0) return "the arguments";
  const name = pathName(path);
  return name.includes('"') ? name : `"${name}"`;
}
