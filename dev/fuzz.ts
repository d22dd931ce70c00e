/**
 * A seeded fuzzer for a running server: random tool calls, valid and invalid
 * interleaved, over several processes it starts, kills and cleans up as it
 * goes. Shared by the fuzz test (10,000 calls) and the soak script
 * (`dev/soak.ts fuzz`, as many as asked). Each call must be answered within
 * its deadline, never with an internal error, an error message must stay
 * short, and a call built to be invalid must be refused: by a tool error, or
 * (a malformed request, an unknown tool) by a JSON-RPC Invalid params.
 *
 * @example
 * ```ts ignore
 * import { fuzz } from "./fuzz.ts";
 * import { Portal } from "./portal_client.ts";
 *
 * await using portal = await Portal.start();
 * const report = await fuzz(portal, { calls: 1000, seed: 7 });
 * ```
 * @module
 */
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { ERROR_MAX_CHARS } from "../src/limits.ts";
import type { Json, Portal } from "./portal_client.ts";
import { Random } from "./random.ts";

/** Longest a call may take: past it, the fuzzer reports a hang. */
const CALL_DEADLINE_MS = 30_000;
/** Processes alive at once, at most: a start beyond it kills or cleans up instead. */
const MAX_LIVE = 6;

/** What a run did, and what went wrong (empty `failures`: nothing). */
export interface FuzzReport {
  calls: number;
  refused: number;
  started: number;
  ms: number;
  failures: string[];
}

const PROGRAMS: Json[] = [
  { command: "cat" },
  { command: "cat", pty: true },
  { command: "sh", args: ["-c", 'while read l; do echo "$l"; echo "e$l" >&2; done'] },
  { command: "sleep", args: ["30"] },
  { command: "printf", args: ["a\\0b\\377\\033[1mc\\n"] },
  { command: "sh", args: ["-c", "echo out; echo err >&2; exit 3"] },
  { command: "sh", args: ["-c", "stty -echo; cat"], pty: true, cols: 40, rows: 10 },
  { command: "true" },
];
const STRINGS = [
  "",
  "x",
  "hello\n",
  "a\0b",
  "é😀\n",
  "\x1b[A\x03",
  "ls -la\n",
  "q\n",
  "a".repeat(40) + "b\n",
  ("a".repeat(19) + "\n").repeat(200),
  "word ".repeat(2000) + "!",
];
/** Patterns JavaScript's backtracking engine takes minutes or for ever on, given the `a`s above. */
/** A tool error's kind (`_meta["io.portal/error"]`, docs/tools.md): what decides, never its words. */
function kindOf(result: CallToolResult): string | undefined {
  return (result._meta?.["io.portal/error"] as { kind?: string } | undefined)?.kind;
}

const REDOS = ["(a+)+$", "(a|a)+$", "^(a|a)+$", "(.*a){20}", "^(\\w+\\s?)+$", "((a+)+)+b"];
const KEYS = ["Enter", "Ctrl+C", "Up", "Tab", "Escape", "F5", "Alt+B", "Ctrl+D"];
const SIGNALS = ["SIGINT", "SIGWINCH", "SIGCONT", "SIGUSR1", 28, "CTRL_C_EVENT", "SIGTERM"];

/** Runs `calls` random calls on `portal` with `concurrency` callers at once. */
export async function fuzz(
  portal: Portal,
  options: { calls: number; seed: number; concurrency?: number },
): Promise<FuzzReport> {
  const random = new Random(options.seed);
  const live = new Set<number>();
  /** Ids a cleanup was sent for: they may be gone before its answer comes. */
  const cleaning = new Set<number>();
  const gone: number[] = [];
  const report: FuzzReport = { calls: 0, refused: 0, started: 0, ms: 0, failures: [] };
  const anyId = () =>
    live.size > 0 && random.chance(0.8)
      ? random.pick([...live])
      : gone.length > 0 && random.chance(0.5)
      ? random.pick(gone)
      : 1 + random.int(10_000);
  const wait = (): Json =>
    random.pick([
      { wait: "none" },
      { wait: "ready", wait_ms: random.int(10) },
      { wait: "exit", wait_ms: random.int(10) },
      { expect: "o|e", wait_ms: random.int(10) },
      { expect: random.pick(REDOS), wait_ms: random.int(50) },
    ]);

  /** A call that should work, or fail only for what the process is doing. */
  const valid = (): [string, Json] => {
    const id = anyId();
    switch (random.int(12)) {
      case 0:
        if (live.size >= MAX_LIVE) {
          return [random.pick(["process_kill", "process_cleanup"]), { id }];
        }
        return ["process_start", {
          ...random.pick(PROGRAMS),
          ...(random.chance(0.2) ? { prompt: random.pick(REDOS) } : {}),
          ...wait(),
        }];
      case 1:
      case 2:
        return ["process_write", { id, content: random.pick(STRINGS), ...wait() }];
      case 3:
        return ["process_write", { id, keys: [random.pick(KEYS)], wait: "none" }];
      case 4:
        return ["process_read_new", { id, max_chars: 1 + random.int(200), ...wait() }];
      case 5:
        return ["process_read", {
          id,
          duration: 1 + random.int(5000),
          encoding: random.pick(["text", "base64"]),
        }];
      case 6:
        return ["process_signal", { id, signal: random.pick(SIGNALS) }];
      case 7:
        return random.pick<[string, Json]>([["process_list", {}], ["process_inspect", { id }]]);
      case 8:
        return ["process_screen", { id, scrollback: random.int(5) }];
      case 9:
        return random.pick<[string, Json]>([
          ["process_kill", { id }],
          ["process_cleanup", { id }],
          ["process_clear", { id }],
          random.chance(0.1) ? ["process_kill_all", {}] : ["process_list", {}],
        ]);
      case 10:
        return ["program_query", { program: random.pick(["ssh", "/usr/bin/psql", "vim"]) }];
      default:
        return ["program_record", {
          program: "fuzz-" + random.int(5),
          needs_pty: random.chance(0.5),
          notes: "n",
        }];
    }
  };

  /** A call built to be refused: one argument wrong in one way. */
  const invalid = (): [string, Json] => {
    const id = anyId();
    return random.pick<() => [string, Json]>([
      () => ["process_start", {}],
      () => ["process_start", { command: "cat", bogus: 1 }],
      () => ["process_start", {
        command: random.pick(["ca\0t", "c\ud800at", 7, "", "x".repeat(5000)]),
      }],
      () => ["process_start", { command: "cat", args: random.pick([["a\0"], "x", [1]]) }],
      () => ["process_start", {
        command: "cat",
        env: random.pick([{ A: 1 }, { "A\0": "b" }, { A: "b\0" }]),
      }],
      () => ["process_start", { command: "cat", cwd: random.pick(["/tmp\0", "/no/such/dir"]) }],
      () => ["process_start", {
        command: "cat",
        pty: true,
        cols: random.pick([0, -1, 1.5, 100_000]),
      }],
      () => ["process_start", { command: "cat", prompt: random.pick(["(", "[", "a\0"]) }],
      () => ["process_start", { command: "no-such-program-fuzz" }],
      () => ["process_write", {
        id,
        content: "x",
        // Invalid, or what a linear-time engine cannot run: a backreference, a lookahead, a
        // program too large.
        expect: random.pick(["(", "*", "\\", "(a)\\1", "a(?=b)", "(?:a{999}){4}"]),
      }],
      () => ["process_write", { id, content: random.pick([7, null, "a\udc00"]) }],
      () => ["process_write", { id, keys: [random.pick(["Ctrl+", "NoSuchKey", "x".repeat(100)])] }],
      () => ["process_write", { id, content: "x", wait_ms: random.pick([-1, 1e9, 2.5]) }],
      () => ["process_read", { id, duration: random.pick([-1, 0, "1"]) }],
      () => ["process_read", { id, unit: "minutes" }],
      () => ["process_read_new", { id, max_chars: random.pick([0, -5, 1.5, 2e6]) }],
      () => ["process_signal", {
        id,
        signal: random.pick(["SIGBOGUS", 0, 999, -3, "SIG\0INT", 1.5]),
      }],
      () => ["process_screen", { id, rows: random.pick([0, 5000]) }],
      () => [random.pick(["process_inspect", "process_kill", "process_cleanup"]), {
        id: random.pick([-1, 0, "1", 1.5]),
      }],
      () => ["program_record", { program: "p\0", needs_pty: true }],
      () => ["program_record", { program: "p", needs_pty: "yes" }],
      () => ["program_query", { program: "q".repeat(300) }],
      () => [random.pick(["no_such_tool", "process_start2"]), {}],
      () => [
        random.pick(["process_start", "process_write", "process_list"]),
        random.pick(["x", null, [1], 5]),
      ],
    ])();
  };

  const call = async (name: string, args: Json, mustFail: boolean): Promise<void> => {
    const what = `${name} ${JSON.stringify(args).slice(0, 160)}`;
    if (name === "process_cleanup") cleaning.add(args.id);
    let result: CallToolResult;
    try {
      result = await portal.client.callTool({ name, arguments: args }, undefined, {
        timeout: CALL_DEADLINE_MS,
      }) as CallToolResult;
    } catch (error) {
      const { code, message } = error as { code?: number; message: string };
      if (error instanceof McpError && code === ErrorCode.InvalidParams) {
        report.calls++;
        report.refused++;
        if (!mustFail) report.failures.push(`${what}: ${message}`);
        // The client puts "MCP error -32602: " before the server's message.
        const sent = message.replace(/^MCP error -32602: /, "");
        if (sent.length > ERROR_MAX_CHARS) {
          report.failures.push(`${what}: ${sent.length}-char error`);
        }
      } else report.failures.push(`${what}: no answer: ${message}`);
      return;
    }
    report.calls++;
    const text = (result.content?.[0] as { text?: string } | undefined)?.text ?? "";
    if (result.isError) {
      report.refused++;
      if (kindOf(result) === "internal") report.failures.push(`${what}: ${text}`);
      if (text.length > ERROR_MAX_CHARS) report.failures.push(`${what}: ${text.length}-char error`);
    } else if (mustFail) {
      report.failures.push(`${what}: should have been refused`);
    }
    const reply = result.structuredContent as Json;
    if (name === "process_start" && !result.isError) {
      report.started++;
      live.add(reply.id);
    }
    if (name === "process_cleanup" && !result.isError) {
      live.delete(args.id);
      gone.push(args.id);
    }
    // An idle program that ended by itself stays listed until cleaned up.
    if (kindOf(result) === "not_found" && live.has(args.id) && !cleaning.has(args.id)) {
      report.failures.push(`${what}: a live id was forgotten: ${text}`);
    }
  };

  const started = performance.now();
  let issued = 0;
  const worker = async () => {
    while (issued < options.calls) {
      issued++;
      const bad = random.chance(0.4);
      const [name, args] = bad ? invalid() : valid();
      await call(name, args, bad);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 16 }, worker));
  report.ms = Math.round(performance.now() - started);
  return report;
}
