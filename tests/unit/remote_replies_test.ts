/**
 * What a remote Portal sends, checked in-process (no server, no ssh): its
 * lines split and bounded (src/bounded_lines.ts), its
 * replies checked by the tool's output schema with this side's ids
 * (src/remote/relayed_reply.ts). The end-to-end cases are in
 * tests/e2e/remote_hostile_test.ts.
 *
 * @module
 */
import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { killAllResult, processDetails, processList } from "../../src/core/model/schema.ts";
import { BoundedLines } from "../../src/bounded_lines.ts";
import { relayedReply } from "../../src/remote/relayed_reply.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

/** Remote ids 3 and 4 are this side's 9 and 10; any other is another client's. */
const local = (remoteId: number) => ({ 3: 9, 4: 10 } as Record<number, number>)[remoteId];

/** The error `run` throws. */
function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error("nothing was thrown");
}

const summary = (id: number, machine?: string) => ({
  id,
  name: null,
  command: "sleep",
  os_pid: 100 + id,
  status: "running",
  state: "running",
  controlled_by: "agent",
  pty: false,
  keep: true,
  timeout_ms: 0,
  inactive_duration_ms: 0,
  io_count: 0,
  ...machine === undefined ? {} : { machine },
});

/** Lines of at most `maxBytes`, as a remote link reads them: each one heard, and each skip. */
function lineReader(maxBytes: number) {
  const heard: string[] = [];
  const reader = new BoundedLines(maxBytes, {
    line: (text) => heard.push(text),
    skipping: () => heard.push("(skipping)"),
    tooLong: () => {},
  });
  return (chunk: Uint8Array) => {
    reader.push(chunk);
    return heard.splice(0);
  };
}

Deno.test("lines: a character split across chunks, empty lines, a line exactly at the bound", () => {
  const push = lineReader(8);
  const euro = bytes("€"); // three bytes
  assertEquals(push(euro.subarray(0, 1)), []);
  assertEquals(push(euro.subarray(1)), []);
  assertEquals(push(bytes("12345\n\n")), ["€12345", ""]);
  assertEquals(push(bytes("12345678\n")), ["12345678"]);
});

Deno.test("lines: past the bound it says so at once, holds nothing, and reads on after", () => {
  const push = lineReader(4);
  assertEquals(push(bytes("abc")), []);
  assertEquals(push(bytes("de")), ["(skipping)"]);
  assertEquals(push(bytes("\nok\n")), ["ok"]);
});

Deno.test("lines: one line per chunk, and one line over 255 chunks, each whole", () => {
  const push = lineReader(16 << 20);
  const chunk = new Uint8Array(64 << 10).fill(0x78);
  chunk[chunk.length - 1] = 0x0a;
  let count = 0;
  for (let i = 0; i < 64; i++) count += push(chunk).length;
  assertEquals(count, 64);
  const plain = new Uint8Array(64 << 10).fill(0x78);
  for (let i = 0; i < 255; i++) assertEquals(push(plain), []);
  const [line] = push(bytes("\n"));
  assertEquals(line.length, 255 * (64 << 10));
});

Deno.test("replies: a process's id and machine are this side's, whatever the remote said", () => {
  const reply = { ...summary(3, "elsewhere"), args: [], cwd: "/", env: [], cols: null };
  const details = {
    ...reply,
    rows: null,
    exit_code: null,
    exit_signal: null,
    core_dumped: false,
    started_at: "t",
    ended_at: null,
    stdout_count: 0,
    stderr_count: 0,
    stdin_count: 0,
    shell_integration: "off",
    last_command: null,
    smuggled: "dropped",
    // What a Portal from before `machine` said: read by nothing, dropped.
    host: "old",
  };
  const made = relayedReply(processDetails, details, local, "db1", "process_inspect");
  assertEquals([made.id, made.machine, "smuggled" in made, "host" in made], [
    9,
    "db1",
    false,
    false,
  ]);
});

Deno.test("replies: in a list, a process this side did not start there is left out", () => {
  const reply = { processes: [summary(3), summary(7), summary(4, "x")] };
  const made = relayedReply(processList, reply, local, "db1", "process_list");
  const lines = made.processes as { id: number; machine: string }[];
  assertEquals(lines.map((p) => [p.id, p.machine]), [[9, "db1"], [10, "db1"]]);
});

Deno.test("replies: kill_all's lists and failures in this side's ids", () => {
  const reply = {
    killed: [3, 7],
    leftovers_killed: [],
    failed: [{ id: 4, error: "busy" }, { id: 8, error: "x" }],
    left_running: [5],
  };
  const made = relayedReply(killAllResult, reply, local, "db1", "process_kill_all");
  assertEquals(made, {
    killed: [9],
    leftovers_killed: [],
    failed: [{ id: 10, error: "busy" }],
    left_running: [],
  });
});

Deno.test("replies: one that does not fit, or names another process, is refused", () => {
  const forged = thrown(() =>
    relayedReply(processList, { processes: [{ id: "__proto__" }] }, local, "db1", "process_list")
  );
  assertMatch(forged.message, /^db1's reply to process_list is not a Portal reply \(processes\.0/);
  const other = thrown(() =>
    relayedReply(processDetails.pick({ id: true }), { id: 7 }, local, "db1", "process_kill")
  );
  assertMatch(other.message, /it names process 7, not asked for\): refused/);
});
