/**
 * Every limit and default an agent can run into, in one place: the tool
 * schemas, their descriptions and the core all read them from here (the
 * `PORTAL_*` variables that change some of them: src/env_vars.ts).
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

/**
 * Lines of scrollback the emulator keeps above a PTY's screen: about 1 MB per
 * terminal at 80 columns once full; older lines are still in the records.
 */
export const SCROLLBACK_LINES = 1000;

/**
 * Terminals whose emulator stays in memory (about 2 MB each with a full
 * scrollback), the most recently used; the others are rebuilt from their
 * records when a screen is asked for (see src/core/screen/live_screens.ts).
 */
export const LIVE_SCREENS = 16;

/**
 * V8's flags for a host (and a compiled binary): each isolate's young
 * generation (the server's thread, the emulator Worker) holds
 * 1 MiB per semi-space, not V8's default that grows to 32 MiB under churn and
 * stays: 100 idle PTYs cost the host about 25 MB less (docs/performance.md).
 */
export const V8_FLAGS = "--max-semi-space-size=1";

/**
 * A terminal whose output so far is longer than this keeps its emulator:
 * replaying it would take the emulator about 0.1 s per 8 MiB.
 */
export const REPLAY_BYTES = 8 << 20;

/**
 * Bytes a millisecond at most that a flood is read while the agent works
 * with another process (about 16 MB/s; see src/core/process/attention.ts):
 * the program waits on its full pipe or terminal meanwhile, nothing is lost.
 */
export const PACED_FLOOD_BYTES_PER_MS = 16 * 1024;

/** Between the polite signal (SIGTERM / SIGHUP) and SIGKILL when a process is killed. */
export const KILL_GRACE_MS = 500;

/** Bytes of input held for a program that is not reading, before a write is refused. */
export const INPUT_QUEUE_LIMIT = 8 * 1024 * 1024;

/** `max_chars` of the read tools: range and default (keeps one reply inside a model's context). */
export const MAX_CHARS = { min: 1, max: 1_000_000, default: 100_000 } as const;

/** Longest idle timeout: setTimeout's limit (about 24.8 days); beyond it a timer fires at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** Default of `PORTAL_MAX_OUTPUT_BYTES`: stored records per process (src/env_vars.ts). */
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** Default of `PORTAL_RETENTION_DAYS`: days an ended server's database is kept. */
export const DEFAULT_RETENTION_DAYS = 7;

/** Defaults of `PORTAL_SESSION_IDLE_S` (30 minutes) and `PORTAL_MAX_SESSIONS`. */
export const DEFAULT_SESSION_IDLE_S = 1800;
export const DEFAULT_MAX_SESSIONS = 64;

/**
 * process_read by lines: `context`, the lines shown before and after a match
 * (or around `line`); `searchMs`, how long a search reads before it stops and
 * says at which line (other calls are answered meanwhile).
 */
export const READ_LINES = { context: 3, maxContext: 200, searchMs: 5000 } as const;

/** `process_read`'s default look-back window, in milliseconds. */
export const DEFAULT_READ_WINDOW_MS = 1000;

/** Longest process_kill waits for a program to be gone; past it, the kill is reported failed. */
export const KILL_DEADLINE_MS = 5000;

/** Longest process_signal SIGSTOP waits for the kernel to show the program stopped. */
export const STOP_DEADLINE_MS = 1000;

/** Longest the server waits for its processes to die at shutdown before it exits anyway. */
export const SHUTDOWN_DEADLINE_MS = 3000;

/** Registry keys are executable names: no longer than a file name may be on common file systems. */
export const PROGRAM_NAME_MAX = 255;

/** Registry notes are caveats, not documents; this keeps every later query small. */
export const NOTES_MAX = 2000;

/**
 * `wait_ms`, the bound of a wait in process_write, process_read_new and process_start: at most
 * `max` (300 s) for a call its client hears nothing from; up to `withProgress` (24 h) for one
 * whose client gets its progress (a `progressToken`, or a task): a client that resets its
 * timeout on progress keeps such a call alive, one that hears nothing gives up on it.
 */
export const WAIT_MS = { default: 10_000, max: 300_000, withProgress: 86_400_000 } as const;

/**
 * MCP tasks (2026-07-28's extension `io.modelcontextprotocol/tasks`, when the client declares
 * it): a waiting call still going after `afterMs` answers with a task to poll; its wait may
 * last `waitMaxMs`; a task is kept `keptMs` after it ends (then forgotten), at most `max` at
 * once; `pollMs` is the polling interval suggested.
 */
export const TASKS = {
  afterMs: 3_000,
  waitMaxMs: 24 * 3_600_000,
  keptMs: 3_600_000,
  max: 1_000,
  pollMs: 2_000,
} as const;

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

/**
 * A secret for process_write is a password or a token: at most this many characters. Each
 * output chunk is searched for every secret, and the start of one is held back between chunks.
 */
export const SECRET_MAX_CHARS = 4096;

/** How long the person has to answer a `secret_prompt` before the call fails. */
export const SECRET_PROMPT_MS = 300_000;

/** A `secret_prompt` label names what is asked for ("Password for db1"), shown to the person. */
export const SECRET_LABEL_MAX = 200;

/** The longest error message a tool call returns; past it, the middle is left out. */
export const ERROR_MAX_CHARS = 2000;

/** Characters of a bad value an error message quotes. */
export const QUOTED_CHARS = 60;

// Limits at the door: what one call may carry, so that nothing stored can make a later call
// fail (every later process_list / process_inspect repeats what a start stored).

/**
 * Most instructions the program of an `expect` or `prompt` may compile to. A
 * search costs up to the text's length times this size, and each one is
 * bounded (src/core/pattern/pattern.ts): at this size it still covers 250
 * characters; a simple pattern (about 10 instructions) covers 10,000.
 */
export const PATTERN_MAX_PROGRAM = 400;

/** Longest command, cwd, environment variable name, `prompt` or `expect` (PATH_MAX). */
export const NAME_MAX_CHARS = 4096;

/** Most characters in all of `args`, and in all of `env`'s names and values, at one start. */
export const LAUNCH_MAX_CHARS = 262_144;

/** Longest `content` of one `process_write`: larger input goes in several writes. */
export const CONTENT_MAX_CHARS = 1_048_576;

/** Most names in one `keys`, and the longest name (`Ctrl+Alt+Shift+PageDown` is 23). */
export const KEYS_MAX = { count: 1000, chars: 64 } as const;

/** Longest signal name (`CTRL_BREAK_EVENT` is 16). */
export const SIGNAL_NAME_MAX_CHARS = 32;

/**
 * Largest JSON-RPC message the stdio server reads (the official SDK client's
 * own limit on what it reads); a larger one is answered with an error and
 * skipped, unread.
 */
export const REQUEST_MAX_BYTES = 10 * 1024 * 1024;

/**
 * How long a host with no client and no running kept process waits before it
 * exits: long enough for a client that restarts (an editor reload, a health
 * check followed by the real start) to find the same host, short enough that
 * nothing lingers.
 */
export const HOST_GRACE_MS = 5000;

/**
 * How long a door waits for the host it started to answer. A first run may
 * download Deno's dependencies before the host can listen.
 */
export const HOST_START_DEADLINE_MS = 60_000;

/** How long a host waits for a caller's first line before it drops the connection. */
export const HELLO_DEADLINE_MS = 5000;

/**
 * Largest frame the host reads from an attached terminal (what a person
 * typed: the terminal sends what one read of its input held, at most 64 KiB).
 * A header that claims more closes the connection before anything is allocated.
 */
export const ATTACH_INPUT_MAX_BYTES = 1 << 20;

/**
 * Largest frame `portal attach` reads from its host: a screen of 1000 × 1000
 * cells as JSON stays well under it, and output goes in chunks of at most 1 MiB.
 */
export const ATTACH_FRAME_MAX_BYTES = 16 << 20;

/**
 * Bytes of output a host holds for an attached terminal that has not taken
 * them (Ctrl+S, a stalled ssh). Past it the output is skipped, not queued
 * (it is in the records), and the terminal gets the screen as it stands once
 * it has taken what was sent (src/host/attach/terminal_feed.ts).
 */
export const ATTACH_BACKLOG_BYTES = 1 << 20;

/**
 * Bytes of replies a client has not read past which the host reads no more
 * of its requests (and drops its progress and log notifications): a client
 * that does not read cannot make the host queue more (src/mcp/stdio.ts).
 */
export const REPLY_BACKLOG_BYTES = 8 << 20;

/**
 * Bytes of unread replies past which a client is taken for gone and its
 * connection ended, as if it had left: only the requests it sent before it
 * stopped reading can get it there (many at once, each answered in full).
 */
export const REPLY_BACKLOG_MAX_BYTES = 64 << 20;
