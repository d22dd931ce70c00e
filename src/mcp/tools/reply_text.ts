/**
 * The text block of a tool's result: what the model reads. `structuredContent`
 * keeps every field for programs; the text says what matters once. A step
 * reply (process_write, process_start, process_read_new with a wait) is one
 * line in brackets, then the output as it is, not as a JSON string (its
 * newlines and quotes unescaped): `[ready]` then a REPL's answer costs 8
 * characters beyond it, where the JSON of its fields cost about 85. A screen
 * (process_screen) is the same: a line of what it is, then its rows. Every
 * other result (lists, details, records with their timestamps and sources)
 * is small or is data a program reads field by field: its text stays the
 * JSON of the result.
 *
 * The bracket line's words are the instructions' (src/mcp/instructions.ts):
 * `ready` (waiting for input), or the state (`waiting_for_secret`,
 * `stopped`, `running`), or `exited 0`; `expect` when the pattern matched;
 * `timeout` when `wait_ms` ran out; `$?=1` a shell command's exit code;
 * `echo -9` the characters of the agent's own echo left out of the output.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { replyText } from "./reply_text.ts";
 *
 * const step = { id: 1, bytes_written: 6, state: "waiting_for_input", reason: "ready" };
 * assert.equal(replyText({ ...step, output: "42\n>>> " }), "[ready]\n42\n>>> ");
 * assert.equal(replyText({ processes: [] }), '{"processes":[]}');
 * ```
 * @module
 */

import { compactRows } from "../../core/output/screen_rows.ts";

type Result = Record<string, unknown>;

/** Longest `expect` match or person input quoted in the bracket line. */
const QUOTE_CHARS = 80;

/** The text block of `result` (see the module doc). */
export function replyText(result: Result, startReply = false): string {
  if (typeof result.reason === "string" && typeof result.state === "string") {
    return stepText(result, startReply);
  }
  if (Array.isArray(result.lines) && typeof result.active_buffer === "string") {
    return screenText(result);
  }
  return JSON.stringify(result);
}

function stepText(r: Result, startReply: boolean): string {
  const parts: string[] = [];
  if (startReply) parts.push(`id ${r.id}`);
  parts.push(...outcome(r));
  const commands = r.commands as { exit_code: number | null }[] | undefined;
  // process_start's `command` is the program, a string: a shell command is an object.
  const command = typeof r.command === "object" ? r.command as { exit_code: number | null } : null;
  if (commands && commands.length > 1) {
    parts.push(`$?=${commands.map((c) => c.exit_code ?? "?").join(",")}`);
  } else if (command) parts.push(`$?=${command.exit_code ?? "?"}`);
  if (typeof r.echo_chars === "number" && r.echo_chars > 0) parts.push(`echo -${r.echo_chars}`);
  if (r.pasted === false) parts.push("typed, not pasted");
  if (typeof r.shell_integration === "string") parts.push(`integration ${r.shell_integration}`);
  const cursor = r.cursor as { row: number; col: number } | undefined;
  if (cursor) parts.push(`screen, cursor ${cursor.row}:${cursor.col}`);
  const rows = r.omitted_rows as { from: number; to: number } | undefined;
  if (rows) parts.push(emptyRows(rows));
  if (typeof r.omitted_chars === "number") parts.push(`${r.omitted_chars} chars omitted`);
  if (typeof r.dropped_bytes === "number" && r.dropped_bytes > 0) {
    parts.push(`${r.dropped_bytes} bytes dropped`);
  }
  if (typeof r.person_input === "string") parts.push(`person typed ${quoted(r.person_input)}`);
  const output = typeof r.output === "string" && r.output !== "" ? `\n${r.output}` : "";
  return `[${parts.join(", ")}]${output}`;
}

/** Why the step returned and what the program does, in as few words as say it. */
function outcome(r: Result): string[] {
  const exited = r.state === "exited"
    ? [`exited ${r.exit_signal ?? r.exit_code ?? ""}`.trimEnd()]
    : [r.state as string];
  switch (r.reason) {
    case "ready":
      return r.state === "waiting_for_input" ? ["ready"] : [r.state as string];
    case "exit":
      return exited;
    case "expect": {
      const match = r.match as { text: string } | undefined;
      return [`expect ${quoted(match?.text ?? "")}`, ...exited];
    }
    case "timeout":
      return ["timeout", ...exited];
    default:
      return exited;
  }
}

function screenText(r: Result): string {
  const parts = [`${r.buffer} screen ${r.cols}x${r.rows}`];
  const cursor = r.cursor as { row: number; col: number };
  parts.push(`cursor ${cursor.row}:${cursor.col}`);
  if (typeof r.title === "string" && r.title !== "") parts.push(`title ${quoted(r.title)}`);
  const { lines, omitted } = compactRows(r.lines as string[]);
  if (omitted) parts.push(emptyRows(omitted));
  const scrollback = r.scrollback as string[] | undefined;
  if (scrollback?.length) parts.push(`${scrollback.length} scrollback lines first`);
  if (typeof r.person_input === "string") parts.push(`person typed ${quoted(r.person_input)}`);
  const body = [...scrollback ?? [], ...lines].join("\n");
  return `[${parts.join(", ")}]${body === "" ? "" : `\n${body}`}`;
}

function emptyRows({ from, to }: { from: number; to: number }): string {
  return `rows ${from}-${to} empty`;
}

function quoted(text: string): string {
  return JSON.stringify(text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text);
}
