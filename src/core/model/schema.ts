/**
 * The data model of Portal as zod schemas: what a launch request holds and
 * what the core answers. The schemas are the one source of truth: the core's
 * types are inferred from them, and the tools publish them as their input and
 * output schemas, so a field cannot be added in one place and forgotten in
 * the other.
 *
 * The `.describe()` text of a field is what an agent reads about it in the
 * tool's input schema, beside its default ({@link byDefault}: the keyword,
 * not words). It sits on the field, here, for the same reason: a
 * field, its bounds (which the text quotes from limits.ts) and its meaning
 * are declared once, and two tools that share a field (`id`, the wait of
 * process_write, process_read_new and process_start) share its words. What
 * is about a tool rather than a field (when to use it, its defaults and
 * platform differences, fields no other tool has) is in src/mcp/tools/.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { processSummary } from "./schema.ts";
 *
 * assert.ok(processSummary.safeParse({ id: 1 }).error);
 * ```
 * @module
 */
import { resolve } from "node:path";
import { z } from "zod";
import {
  LAUNCH_MAX_CHARS,
  MAX_CHARS,
  MAX_TIMEOUT_MS,
  NAME_MAX_CHARS,
  PROGRAM_NAME_MAX,
  QUIET_MS,
  SCROLLBACK_LINES,
  TERMINAL_SIZE,
  WAIT_MS,
} from "../../limits.ts";

/** The fields of `value` that `schema` declares: a narrower view of a wider object. */
export function project<S extends z.ZodObject>(schema: S, value: z.infer<S>): z.infer<S> {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(schema.shape)) {
    picked[key] = (value as Record<string, unknown>)[key];
  }
  return picked as z.infer<S>;
}

/** A process id as the tools take it (from process_start: the name says it). */
export const id = z.number().int().min(1);

/** A process id in a reply (described once, on the input side). */
export const processId = z.number();

export const status = z.enum(["running", "exited", "killed"]);
export type Status = z.infer<typeof status>;

/**
 * What a program is doing: busy (or blocked on something other than its input), waiting
 * for input, waiting for a secret (input/password_prompt.ts: echo off in canonical mode,
 * or a password prompt behind a relay), stopped, or ended.
 */
export const processState = z.enum([
  "running",
  "waiting_for_input",
  "waiting_for_secret",
  "stopped",
  "exited",
]);
export type ProcessState = z.infer<typeof processState>;

/** The `_meta` key of a wait's progress that carries the state (never read from its words). */
export const PROGRESS_STATE_META = "io.portal/state";

/** Why a call returned: the program became ready, expect matched, it exited, the bound passed. */
export const waitReason = z.enum(["ready", "expect", "exit", "timeout", "none"]);
export type WaitReason = z.infer<typeof waitReason>;

/** What `expect` matched: the text and its groups, numbered ("1", …) and named. */
export const waitMatch = z.object({ text: z.string(), groups: z.record(z.string(), z.string()) });
export type WaitMatch = z.infer<typeof waitMatch>;

/**
 * A string that ends up in a C string, a key or a name, where a NUL would cut
 * it short: a NUL is an error, never a truncation. (A check, not a `pattern`:
 * the tool list stays short.)
 */
export const withoutNul = <T extends z.ZodString>(schema: T) =>
  schema.refine((text) => !text.includes("\0"), "must not contain NUL characters");

/** A name a launch passes on: no NUL, at most {@link NAME_MAX_CHARS}. */
export const name = () => withoutNul(z.string().max(NAME_MAX_CHARS));

/** At most {@link LAUNCH_MAX_CHARS} characters in all of `texts`. */
const launchSized = (texts: string[]) =>
  texts.reduce((n, text) => n + text.length, 0) <= LAUNCH_MAX_CHARS;
const LAUNCH_SIZE = `at most ${LAUNCH_MAX_CHARS} characters in all`;

/**
 * A process's label: letters, digits, `.`, `_`, `-`, not all digits (so a
 * name never reads as an id).
 */
const NAME_RULE = "must be 1 to 64 letters, digits, '.', '_' or '-', and not only digits";
export const processName = z.string().regex(/^[\w.-]{1,64}$/, NAME_RULE)
  .refine((text) => !/^\d+$/.test(text), NAME_RULE);

const terminalSize = () => z.number().int().min(TERMINAL_SIZE.min).max(TERMINAL_SIZE.max);

/**
 * `schema`, optional, its default given as JSON Schema's `default`: what a
 * listing says in 12 characters where "Default 80." takes 27 (the caller
 * applies it; parsing leaves the field absent).
 */
export const byDefault = <T extends z.ZodType>(schema: T, value: z.input<T>) =>
  schema.optional().meta({ default: value });

/** What `process_start` takes: one launch, declared once. */
export const startRequest = z.object({
  command: withoutNul(z.string().min(1).max(NAME_MAX_CHARS)).describe(
    "A name on PATH, or a path.",
  ),
  args: z.array(withoutNul(z.string())).refine(launchSized, LAUNCH_SIZE).optional(),
  cwd: name().optional(),
  env: z.record(name(), withoutNul(z.string())).refine(
    (env) => launchSized([...Object.keys(env), ...Object.values(env)]),
    LAUNCH_SIZE,
  ).optional().describe(
    "Merged over the server's.",
  ),
  timeout_ms: z.number().int().min(0).max(MAX_TIMEOUT_MS).optional().describe(
    "Idle timeout. Default 0: none.",
  ),
  pty: z.boolean().optional(),
  cols: byDefault(terminalSize(), TERMINAL_SIZE.defaultCols),
  rows: byDefault(terminalSize(), TERMINAL_SIZE.defaultRows),
  prompt: name().optional().describe(
    "Regex: waits end when the last line matches.",
  ),
  keep: z.boolean().optional().describe("Outlive this client."),
  name: processName.optional().describe(
    "A label, unique while it runs.",
  ),
  // Its default (true) and what it does, the instructions say.
  shell_integration: z.boolean().optional(),
});
export type StartRequest = z.infer<typeof startRequest>;

/** The wait of process_write, process_read_new and process_start (`wait`'s default differs). */
export function waitRequest(defaultWait: "ready" | "none") {
  return z.object({
    wait: byDefault(z.enum(["ready", "exit", "none"]), defaultWait),
    // What expect and quiet_ms are, and quiet_ms's default, the instructions say once.
    expect: name().optional(),
    // Over WAIT_MS.max only with a progressToken: the instructions say it once.
    wait_ms: byDefault(z.number().int().min(0).max(WAIT_MS.withProgress), WAIT_MS.default),
    quiet_ms: z.number().int().min(0).max(QUIET_MS.max).optional(),
  });
}
export type WaitRequest = z.infer<ReturnType<typeof waitRequest>>;

/** Who types into a process: the agent, or a person who took over on the watch page. */
export const controlledBy = z.enum(["agent", "person"]);

/**
 * What a person typed on the watch page since the agent's last call on the
 * process, as the stdin records show it (set only when there is some).
 */
export const personInput = z.string().optional();

/** A command a shell ran, as its shell integration marks told it. */
export const shellCommand = z.object({
  line: z.string(),
  /** null when the shell did not say (a prompt came without an end mark). */
  exit_code: z.number().nullable(),
  /** The shell's directory when the command ended, when the shell reports it. */
  cwd: z.string().nullable(),
  duration_ms: z.number(),
});
export type ShellCommand = z.infer<typeof shellCommand>;

/** What a waiting call adds to its reply (described in process_write's description). */
export const stepReply = z.object({
  state: processState,
  reason: waitReason,
  output: z.string().optional(),
  truncated: z.boolean().optional(),
  omitted_chars: z.number().optional(),
  /** Unread output the store's cap dropped before this reply (see dropped_bytes of reads). */
  dropped_bytes: z.number().optional(),
  match: waitMatch.optional(),
  exit_code: z.number().nullable().optional(),
  exit_signal: z.string().nullable().optional(),
  /** Set when output is the rendered alternate screen (vim, less): where its cursor is. */
  cursor: z.object({ row: z.number(), col: z.number() }).optional(),
  /** Rows of that screen left out of output, 0-based and inclusive: blank, or vim's `~`. */
  omitted_rows: z.object({ from: z.number(), to: z.number() }).optional(),
  /** Characters of the terminal's echo of the typed lines left out of output. */
  echo_chars: z.number().optional(),
  /** The shell command that finished since the last call (shell integration), and all of them. */
  command: shellCommand.optional(),
  commands: z.array(shellCommand).optional(),
  person_input: personInput,
});
export type StepReply = z.infer<typeof stepReply>;

/** A launch with every default applied and `cwd` made absolute. */
export type LaunchSpec = Required<StartRequest>;

/** `request` with every default applied, its `cwd` resolved against `cwd`. */
export function launchSpec(request: StartRequest, cwd: string): LaunchSpec {
  return {
    command: request.command.trim(),
    args: request.args ?? [],
    cwd: resolve(cwd, request.cwd ?? "."),
    env: request.env ?? {},
    pty: request.pty ?? false,
    timeout_ms: request.timeout_ms ?? 0,
    cols: request.cols ?? TERMINAL_SIZE.defaultCols,
    rows: request.rows ?? TERMINAL_SIZE.defaultRows,
    prompt: request.prompt ?? "",
    keep: request.keep ?? false,
    name: request.name ?? "",
    shell_integration: request.shell_integration ?? true,
  };
}

/**
 * The launch of a program an earlier host held, as far as its row tells
 * it: env values are never stored, so only the names are known.
 */
export function earlierSpec(row: ProcessDetails): LaunchSpec {
  const { command, args, cwd, pty, timeout_ms, keep } = row;
  return {
    ...{ command, args, cwd, pty, timeout_ms, keep },
    env: Object.fromEntries(row.env.map((name) => [name, ""])),
    cols: TERMINAL_SIZE.defaultCols,
    rows: TERMINAL_SIZE.defaultRows,
    prompt: "",
    name: row.name ?? "",
    shell_integration: false,
  };
}

/** Whether the shell in front sends shell integration marks. */
export const shellIntegration = z.enum(["active", "off"]);

/** The person's rules a process runs under (policy.ts's PolicyView), when a policy is set. */
export const policyView = z.object({
  file: z.string().nullable(),
  mode: z.string(),
  network: z.string(),
}).passthrough().describe("The person's rules (PORTAL_POLICY), kernel-enforced. Absent: none.");

/** One line of `process_list`. */
export const processSummary = z.object({
  id: processId,
  name: z.string().nullable(),
  command: z.string(),
  os_pid: z.number(),
  status,
  state: processState,
  controlled_by: controlledBy,
  pty: z.boolean(),
  keep: z.boolean(),
  timeout_ms: z.number(),
  inactive_duration_ms: z.number(),
  io_count: z.number(),
  machine: z.string().optional(),
});
export type ProcessSummary = z.infer<typeof processSummary>;

/** A line of `process_list`: a process's summary, and for one on another machine, its reach. */
export const processLine = processSummary.extend({
  unreachable: z.string().optional().describe(
    "On another machine that did not answer the last look: since when and why; status and " +
      "state are as last seen.",
  ),
});
export type ProcessLine = z.infer<typeof processLine>;

/** What `process_list` answers. */
export const processList = z.object({ processes: z.array(processLine) });

/** Everything known about a process (`process_inspect`; also what the store keeps). */
export const processDetails = processSummary.extend({
  args: z.array(z.string()),
  cwd: z.string(),
  env: z.array(z.string()),
  cols: z.number().nullable(),
  rows: z.number().nullable(),
  exit_code: z.number().nullable(),
  exit_signal: z.string().nullable(),
  core_dumped: z.boolean().describe("The signal that ended it dumped core."),
  started_at: z.string(),
  ended_at: z.string().nullable(),
  stdout_count: z.number(),
  stderr_count: z.number(),
  stdin_count: z.number(),
  person_input: personInput,
  shell_integration: shellIntegration,
  last_command: shellCommand.nullable(),
  policy: policyView.optional(),
});
export type ProcessDetails = z.infer<typeof processDetails>;

/** How a killed process ended. */
export const killResult = processDetails.pick({
  id: true,
  status: true,
  exit_code: true,
  exit_signal: true,
});
export type KillResult = z.infer<typeof killResult>;

/** What `process_kill_all` did, per process. */
export const killAllResult = z.object({
  killed: z.array(processId).describe("Were running, now killed."),
  leftovers_killed: z.array(processId).describe(
    "Had ended; what they left running was killed.",
  ),
  failed: z.array(z.object({ id: processId, error: z.string() })),
  left_running: z.array(processId).describe(
    "Kept processes another client (or an earlier connection) started: still running.",
  ),
});
export type KillAllResult = z.infer<typeof killAllResult>;

export const source = z.enum(["stdout", "stderr", "stdin"]);
export type Source = z.infer<typeof source>;

/**
 * How a record's content is given: `text` (UTF-8, invalid bytes as U+FFFD,
 * escape sequences stripped, CR dropped on a PTY) or `base64` (the bytes
 * exactly as the program wrote them, or as they were sent).
 */
export const encoding = z.enum(["text", "base64"]);
export type Encoding = z.infer<typeof encoding>;

/** One record as the read tools return it. */
export const record = z.object({
  timestamp: z.number().describe("Nanoseconds since the process started."),
  source,
  content: z.string(),
});

/** A page of records. */
export const recordPage = z.object({
  id: processId,
  status,
  records: z.array(record),
  truncated: z.boolean().describe("More matching records exist beyond max_chars."),
  dropped_bytes: z.number().describe(
    "Bytes of older output this read would have included but the per-process cap dropped.",
  ),
  person_input: personInput,
});
export type RecordPage = z.infer<typeof recordPage>;

/** `max_chars`: a hard cap on the content of a reply, `fallback` when absent. */
export function maxCharsParam(fallback: number) {
  return byDefault(z.number().int().min(MAX_CHARS.min).max(MAX_CHARS.max), fallback);
}

export const maxChars = maxCharsParam(MAX_CHARS.default);

export const bufferName = z.enum(["primary", "alternate"]);
export type BufferName = z.infer<typeof bufferName>;

/** What `process_screen` takes besides the id. */
export const screenRequest = z.object({
  buffer: bufferName.optional().describe("Default: the active one."),
  // That they resize the terminal first, process_screen's description says.
  cols: terminalSize().optional(),
  rows: terminalSize().optional(),
  scrollback: byDefault(z.number().int().min(0).max(SCROLLBACK_LINES), 0),
});
export type ScreenRequest = z.infer<typeof screenRequest>;

/** What is on the screen, compactly: trailing blanks and blank rows at the bottom left out. */
export const screenSnapshot = z.object({
  buffer: bufferName,
  active_buffer: bufferName,
  cols: z.number(),
  rows: z.number(),
  /** 0-based, from the top of the screen. */
  cursor: z.object({ row: z.number(), col: z.number() }),
  title: z.string().nullable(),
  lines: z.array(z.string()),
  /** Only when asked for: lines just above the screen, oldest first. */
  scrollback: z.array(z.string()).optional(),
  person_input: personInput,
});
export type ScreenSnapshot = z.infer<typeof screenSnapshot>;

/** An executable name as the registry keys it. */
export const programName = withoutNul(z.string().min(1).max(PROGRAM_NAME_MAX));

/** What the registry knows about one program. */
export const programFact = z.object({
  program: z.string(),
  needs_pty: z.boolean(),
  /** Times in a row this value was recorded (≥ 2: settled). */
  confirmed_count: z.number(),
  notes: z.string().nullable(),
  updated_at: z.string(),
});
export type ProgramFact = z.infer<typeof programFact>;
