/**
 * Long waits as an MCP client sees them, through the official SDK client:
 * progress notifications that keep its request timeout from firing,
 * cancellation that ends a wait at once, and other calls answered while a
 * wait runs.
 */
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { ModernPortal } from "../../dev/modern_client.ts";
import { bashStart, type Json } from "../../dev/portal_client.ts";
import { waitFor } from "../../dev/wait.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { sharedPortal } from "../helpers/portal.ts";
import { posixTest } from "../helpers/platform.ts";
import { waitForeground } from "../helpers/processes.ts";

// Each test asserts only about its own processes: one server serves them all.
const { linuxTest } = sharedPortal();

linuxTest(
  "a long wait sends progress, which keeps the client's timeout from firing",
  async (portal) => {
    const { id } = await portal.startBash();
    const progress: Progress[] = [];
    // The client gives up after 2 s without news (a progress each second); the step takes 2.5 s.
    const result = await portal.client.callTool(
      { name: "process_write", arguments: { id, content: "sleep 2.5; echo slept\n" } },
      undefined,
      {
        onprogress: (p: Progress) => progress.push(p),
        timeout: 2000,
        resetTimeoutOnProgress: true,
      },
    ) as CallToolResult;
    const reply = result.structuredContent as Json;
    assertEquals([reply.reason, reply.state], ["ready", "waiting_for_input"]);
    assertStringIncludes(reply.output, "slept\nREADY$ ");
    assert(progress.length >= 2, `${progress.length} progress notifications`);
    for (let i = 1; i < progress.length; i++) {
      assert(
        progress[i].progress > progress[i - 1].progress,
      );
    }
    assertEquals(progress[0].total, 10_000);
    assertMatch(progress[0].message ?? "", /waited 1 s of 10 s; running/);
    // And the program's last line, so a person (or a client's log) sees what it is doing: the
    // command while it sleeps (a notification sent once it printed may name "slept" instead).
    const lines = progress.map((p) => p.message ?? "");
    assert(lines.some((m) => /; last line: ".*sleep 2.5; echo slept"$/.test(m)), lines.join("\n"));
    await portal.call("process_kill", { id });
  },
);

linuxTest("cancelling a 60 s wait ends it at once; the output stays unread", async (portal) => {
  const { id, os_pid } = await portal.startBash();
  const cancel = new AbortController();
  let notified = false;
  const call = portal.client.callTool(
    { name: "process_write", arguments: { id, content: "sleep 60\n", wait_ms: 60_000 } },
    undefined,
    { signal: cancel.signal, onprogress: () => notified = true },
  );
  const settled = call.then(() => "answered", (error: unknown) => `rejected: ${error}`);
  // Cancel once the wait demonstrably runs: it has reported progress.
  await waitFor("the first progress notification", () => notified);
  cancel.abort("changed my mind");
  assertMatch(await settled, /^rejected: .*changed my mind/);
  // The server carries on; the cancelled call consumed nothing.
  assertEquals((await portal.call("process_inspect", { id })).state, "running");
  await waitForeground(os_pid, "sleep");
  const after = await portal.call("process_write", { id, keys: ["Ctrl+C"] });
  assertEquals(after.output, "sleep 60\n^C\nREADY$ ");
  await portal.call("process_kill", { id });
});

linuxTest(
  "while a wait runs, calls on other processes and on the same one are answered",
  async (portal) => {
    const { id: shell, os_pid } = await portal.startBash();
    const { id: python } = await portal.call("process_start", {
      command: "python3",
      args: ["-q"],
      pty: true,
      wait: "ready",
    });
    let waiting = true;
    const long = portal.call("process_write", { id: shell, content: "sleep 30\n", wait_ms: 60_000 })
      .finally(() => waiting = false);
    // Another process steps, the waiting one is inspected, all while the wait goes on.
    const answer = await portal.call("process_write", { id: python, content: "6 * 7\n" });
    assertEquals([answer.output, answer.echo_chars], ["42\n>>> ", 6]);
    const listed = (await portal.call("process_list")).processes.map((p: Json) => p.id);
    assert(listed.includes(shell) && listed.includes(python), `listed: ${listed}`);
    await waitForeground(os_pid, "sleep");
    assertEquals((await portal.call("process_inspect", { id: shell })).state, "running");
    assert(waiting, "the long wait is still running");
    // A second call on the same process interrupts it: both calls end, each byte told once.
    const interrupt = await portal.call("process_write", { id: shell, keys: ["Ctrl+C"] });
    const first = await long;
    assertEquals([first.reason, interrupt.reason], ["ready", "ready"]);
    // The echo of the line typed is left out of the write's own reply, and counted there.
    const echo = first.echo_chars === "sleep 30\n".length ? "sleep 30\n" : "";
    assertEquals(echo + first.output + interrupt.output, "sleep 30\n^C\nREADY$ ");
    await Promise.all([shell, python].map((id) => portal.call("process_kill", { id })));
  },
);

posixTest(
  "with a progressToken a call may wait past 300 s, kept alive by progress (SDK v2 client)",
  async () => {
    // As Claude Code and most clients speak: 2025-11-25, through the SDK v2 client.
    await using portal = await ModernPortal.start({ legacy: true });
    const { id } = await portal.call("process_start", { ...bashStart(), wait: "ready" });
    const progress: { at: number; message: string }[] = [];
    const start = performance.now();
    // The client gives up after 3 s without news; the program answers after 8 s.
    const result = await portal.client.callTool(
      {
        name: "process_write",
        arguments: { id, content: "sleep 8; echo answer\n", wait_ms: 600_000 },
      },
      {
        timeout: 3000,
        resetTimeoutOnProgress: true,
        onprogress: (p: Progress) =>
          progress.push({ at: performance.now() - start, message: p.message ?? "" }),
      },
    ) as CallToolResult;
    const reply = result.structuredContent as Json;
    assertEquals([result.isError, reply.reason, reply.state], [
      undefined,
      "ready",
      "waiting_for_input",
    ]);
    assertStringIncludes(reply.output, "answer\nREADY$ ");
    // Each notification names the program's state and last line; none is 10 s from the last.
    const gaps = progress.map((p, i) => p.at - (progress[i - 1]?.at ?? 0));
    assert(progress.length >= 7 && Math.max(...gaps) < 10_000, JSON.stringify(progress));
    for (const { message } of progress) {
      assertMatch(message, /^waited \d+ s of 600 s; \w+; last line: /);
    }
    assertMatch(
      progress[0].message,
      /^waited 1 s of 600 s; running; last line: ".*sleep 8; echo answer"$/,
    );

    // Without a progressToken the 300 s bound stays, and the refusal says what to do instead.
    const refused = await portal.fail("process_write", {
      id,
      content: "echo never\n",
      wait_ms: 300_001,
    });
    assertMatch(refused, /^wait_ms 300001 is over 300000/);
    assertStringIncludes(refused, 'process_read_new with wait: "ready"');
    assertStringIncludes(refused, "progressToken");
    // Nothing was typed.
    const after = await portal.call("process_read_new", { id });
    assertEquals(after.records.map((r: Json) => r.text).join(""), "");
    await portal.call("process_kill", { id });
  },
  { only: "linux" },
);
