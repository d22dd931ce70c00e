/**
 * Schema pieces shared by several tools.
 *
 * @module
 */
import { z } from "zod";

export const id = z.number().int().positive().describe(
  "Process id returned by process_start (see process_list).",
);

export const status = z.enum(["running", "exited", "killed"]);

export const maxChars = z.number().int().min(1).max(10_000_000).optional().describe(
  "Cap on the characters of content returned (default 100000). When reached, truncated is true.",
);

/** Default for `max_chars`: keeps one reply well inside a model's context. */
export const DEFAULT_MAX_CHARS = 100_000;

const record = z.object({
  timestamp: z.number().describe("Nanoseconds since the process started."),
  source: z.enum(["stdout", "stderr", "stdin"]),
  content: z.string(),
});

export const recordPage = {
  id,
  status,
  records: z.array(record),
  truncated: z.boolean().describe("More matching records exist beyond max_chars."),
};

export const processSummary = {
  id,
  command: z.string(),
  os_pid: z.number(),
  status,
  pty: z.boolean(),
  timeout_ms: z.number(),
  inactive_duration_ms: z.number(),
  io_count: z.number(),
};

export const processDetails = {
  ...processSummary,
  args: z.array(z.string()),
  cwd: z.string(),
  env: z.record(z.string(), z.string()).describe(
    "Variables given at start (merged over the server's).",
  ),
  cols: z.number().nullable(),
  rows: z.number().nullable(),
  exit_code: z.number().nullable(),
  exit_signal: z.string().nullable(),
  started_at: z.string(),
  ended_at: z.string().nullable(),
  stdout_count: z.number(),
  stderr_count: z.number(),
  stdin_count: z.number(),
};

export const programFact = z.object({
  program: z.string(),
  needs_pty: z.boolean(),
  confirmed_count: z.number(),
  notes: z.string().nullable(),
  updated_at: z.string(),
});
