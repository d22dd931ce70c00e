/**
 * Many calls at once on one process: writes, reads with and without waits,
 * screens, kills and a cleanup in flight together never crash the server,
 * never deadlock (every call has a deadline), and never duplicate or lose a
 * record; process_read_new stays exactly-once under 50 concurrent callers.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Portal } from "../../dev/portal_client.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { sharedPortal } from "../helpers/portal.ts";

// Each test calls on its own process only: one server for all.
const { portalTest } = sharedPortal();

// deno-lint-ignore no-explicit-any
type Json = any;

/** Longest any one call may take: past it, the test fails as a deadlock. */
const CALL_DEADLINE_MS = 20_000;

/** A call that may fail, but only with an error meant for the agent, never an internal one. */
async function attempt(portal: Portal, name: string, args: Json): Promise<Json | null> {
  const result = await portal.client.callTool({ name, arguments: args }, undefined, {
    timeout: CALL_DEADLINE_MS,
  }) as CallToolResult;
  if (!result.isError) return result.structuredContent;
  const text = (result.content[0] as { text: string }).text;
  const kind = (result._meta?.["io.portal/error"] as { kind?: string } | undefined)?.kind;
  assert(kind !== undefined && kind !== "internal", `${name}: ${kind}: ${text}`);
  return null;
}

/** What a read returned, as one text: records, or a waiting call's output. */
function textOf(reply: Json | null): string {
  if (reply === null) return "";
  return reply.records ? reply.records.map((r: Json) => r.content).join("") : reply.output ?? "";
}

portalTest(
  "read_new is exactly-once under 50 concurrent callers, waiting or not",
  async (portal) => {
    // 100,000 lines of 8 bytes, one write each (every pipe read is whole lines), over a second
    // or so: a pause every 200 lines keeps the readers busy while it lasts.
    const lines = 100_000;
    const id = await portal.spawn("python3", [
      "-c",
      `import os, time\nfor i in range(${lines}):\n  os.write(1, b"%07d\\n" % i)\n` +
      "  if i % 200 == 0: time.sleep(0.002)",
    ]);
    const pieces: string[] = [];
    const served = new Set<number>();
    const caller = async (n: number) => {
      for (let ended = false;;) {
        const reply = await attempt(
          portal,
          "process_read_new",
          n % 2 === 0
            ? { id, max_chars: 1_000_000 }
            : { id, max_chars: 1_000_000, wait: "ready", wait_ms: 40 },
        );
        assert(reply !== null, "read_new on a live or ended process does not fail");
        const text = textOf(reply);
        assertEquals(reply.omitted_chars ?? 0, 0);
        pieces.push(text);
        if (text !== "") served.add(n);
        // Once it has ended and a read finds nothing, everything has been read by someone.
        if (ended && text === "") return;
        ended = reply.status !== "running";
      }
    };
    await Promise.all(Array.from({ length: 50 }, (_, n) => caller(n)));
    const seen: number[] = [];
    for (const piece of pieces) {
      assert(
        /^(\d{7}\n)*$/.test(piece),
        `a piece of whole lines: ${JSON.stringify(piece.slice(0, 40))}`,
      );
      for (const line of piece.split("\n").slice(0, -1)) seen.push(Number(line));
    }
    seen.sort((a, b) => a - b);
    assertEquals(seen.length, lines, "no line lost or returned twice");
    assert(seen.every((n, i) => n === i), "each line exactly once");
    assert(served.size >= 10, `the reads were interleaved: ${served.size} callers got output`);
  },
);

for (const pty of [false, true]) {
  portalTest(
    `${
      pty ? "PTY" : "pipes"
    }: writes, reads, waits, screens, kills and a cleanup at once: no crash, no deadlock, every record once`,
    async (portal) => {
      // cat without echo: its output is exactly what it was sent. Not canonical either: echo
      // off in canonical mode is a password prompt, whose input is kept secret.
      const id = await portal.spawn("sh", ["-c", "stty -echo -icanon 2>/dev/null; exec cat"], {
        pty,
        wait: "ready",
      });
      const writers = 10;
      const each = 20;
      const sent = new Set<string>();
      const pieces: string[] = [];
      let writing = writers;
      const writer = async (w: number) => {
        for (let i = 0; i < each; i++) {
          const line = `w${w}-${i}`;
          sent.add(line);
          const wait = i % 2 ? { wait: "ready", wait_ms: 2000 } : { wait: "none" };
          const reply = await attempt(portal, "process_write", {
            id,
            content: `${line}\n`,
            ...wait,
          });
          assert(reply !== null, `write ${line}`);
          // cat with echo off copies the line exactly as an echo would look: a reply that
          // left it out as the echo of its own input counts it (echo_chars), and so does this.
          const echoed = reply.echo_chars === line.length + 1 ? `${line}\n` : "";
          pieces.push(echoed + textOf(reply));
        }
        writing--;
      };
      const deadline = Date.now() + CALL_DEADLINE_MS;
      const reader = async (r: number) => {
        while (writing > 0 || received() < sent.size) {
          assert(Date.now() < deadline, `only ${received()} of ${sent.size} lines came back`);
          const args = r % 2 ? { id } : { id, wait: "ready", wait_ms: 100 };
          pieces.push(textOf(await attempt(portal, "process_read_new", args)));
        }
      };
      const received = () => pieces.join("").split("\n").filter((l) => l !== "").length;
      const watcher = async () => {
        while (writing > 0) {
          await attempt(portal, "process_inspect", { id });
          await attempt(portal, "process_list", {});
          if (pty) assert(await attempt(portal, "process_screen", { id }) !== null, "screen");
        }
      };
      await Promise.all([
        ...Array.from({ length: writers }, (_, w) => writer(w)),
        ...Array.from({ length: 10 }, (_, r) => reader(r)),
        watcher(),
        watcher(),
      ]);
      const lines = pieces.join("").replaceAll("\r", "").split("\n").filter((l) => l !== "");
      assertEquals(lines.length, writers * each, "no line lost or returned twice");
      assertEquals(new Set(lines), sent);
      const stdin = await attempt(portal, "process_read", {
        id,
        source: "stdin",
        duration: 600,
        unit: "s",
      });
      const recorded = stdin.records.map((r: Json) => r.content.replace(/[\r\n]$/, ""));
      assertEquals([recorded.length, new Set(recorded)], [writers * each, sent], "stdin records");

      // Kills while waits are in flight: every wait ends with the process, no call hangs.
      const waits = Array.from(
        { length: 5 },
        () => attempt(portal, "process_read_new", { id, wait: "exit", wait_ms: 15_000 }),
      );
      const writes = Array.from(
        { length: 3 },
        () => attempt(portal, "process_write", { id, content: "late\n", wait: "exit" }),
      );
      const kills = await Promise.all([1, 2, 3].map(() => attempt(portal, "process_kill", { id })));
      assert(kills.some((k) => k?.status === "killed"), JSON.stringify(kills));
      for (const reply of await Promise.all(waits)) assertEquals(reply?.reason, "exit");
      await Promise.all(writes);
      // A cleanup amid reads, screens and inspects: each answers or says the id is gone.
      const around = [
        ...Array.from({ length: 5 }, () => attempt(portal, "process_read_new", { id })),
        ...Array.from({ length: 5 }, () => attempt(portal, "process_inspect", { id })),
        ...(pty ? [attempt(portal, "process_screen", { id })] : []),
      ];
      const [cleaned] = await Promise.all([attempt(portal, "process_cleanup", { id }), ...around]);
      assertEquals(cleaned, { id, removed: true });
      const { processes } = await attempt(portal, "process_list", {});
      assertEquals(processes.filter((p: Json) => p.id === id), []);
      // The server carries on.
      const next = await portal.spawn("echo", ["after"]);
      await portal.readUntil(next, (t) => t.includes("after"));
    },
  );
}
