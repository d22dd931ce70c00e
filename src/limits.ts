/**
 * Every limit and default an agent can run into, in one place: the tool
 * schemas, their descriptions and the core all read them from here.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TERMINAL_SIZE } from "./limits.ts";
 *
 * assert.equal(TERMINAL_SIZE.max, 1000);
 * ```
 * @module
 */

/** Terminal width and height accepted at start and on resize. */
export const TERMINAL_SIZE = { min: 1, max: 1000, defaultCols: 80, defaultRows: 24 } as const;

/** Lines of scrollback the emulator keeps above a PTY's screen. */
export const SCROLLBACK_LINES = 5000;

/** Between the polite signal (SIGTERM / SIGHUP) and SIGKILL when a process is killed. */
export const KILL_GRACE_MS = 500;

/** Bytes of input held for a program that is not reading, before a write is refused. */
export const INPUT_QUEUE_LIMIT = 8 * 1024 * 1024;

/** `max_chars` of the read tools: range and default (keeps one reply inside a model's context). */
export const MAX_CHARS = { min: 1, max: 1_000_000, default: 100_000 } as const;

/** Longest idle timeout: setTimeout's limit (about 24.8 days); beyond it a timer fires at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** `process_read`'s default look-back window, in milliseconds. */
export const DEFAULT_READ_WINDOW_MS = 1000;

/** Longest the server waits for its processes to die at shutdown before it exits anyway. */
export const SHUTDOWN_DEADLINE_MS = 3000;

/** `wait_ms`, the bound of a wait in process_write, process_read_new and process_start. */
export const WAIT_MS = { default: 10_000, max: 300_000 } as const;

/**
 * `quiet_ms`: where the OS cannot tell whether a program waits for input (no /proc: macOS,
 * Windows; relays like ssh), this much silence after a prompt-like line counts as ready.
 */
export const QUIET_MS = { default: 300, max: 60_000 } as const;

/** Default `max_chars` of a waiting call's `output` (head and tail kept, the middle counted). */
export const STEP_MAX_CHARS = 16_000;

/** A wait this long or longer reports progress (when the client asked), this often. */
export const PROGRESS_INTERVAL_MS = 1000;

/**
 * JSON bytes one reply may spend on output. A reply carries it twice (structuredContent and
 * text), and the official SDK client drops the connection on a message over 10 MiB.
 */
export const REPLY_OUTPUT_BYTES = 4 * 1024 * 1024;
