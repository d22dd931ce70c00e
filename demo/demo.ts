/**
 * The demo: a real MCP client (the official SDK v2, speaking MCP 2026-07-28)
 * starts Portal over stdio and drives a Python REPL on a pseudo-terminal
 * through it, the way an agent would, printing every tool call and what
 * came back.
 *
 * Run: deno task demo   (needs python3 on PATH)
 */
import { ModernPortal } from "../dev/modern_client.ts";
import type { Rec } from "../dev/portal_client.ts";

const pty = Deno.build.os !== "windows";
const portal = await ModernPortal.start();
const show = (label: string, value: unknown) =>
  console.log(`  ${label} ${typeof value === "string" ? value : JSON.stringify(value)}`);

async function call(tool: string, args: Record<string, unknown> = {}) {
  console.log(`\n→ ${tool} ${JSON.stringify(args)}`);
  const result = await portal.call(tool, args);
  return result;
}

/** Shows a waiting call's reply: why it returned, the state, and the output line by line. */
function showStep(reply: Record<string, unknown>) {
  const { output, ...rest } = reply;
  show("←", rest);
  for (const line of String(output ?? "").split("\n")) show("│", line);
}

try {
  console.log(
    `Portal demo: a Python REPL driven through MCP ${portal.client.getNegotiatedProtocolVersion()} ` +
      `(server: ${portal.client.getServerVersion()?.name})`,
  );
  const { tools } = await portal.client.listTools();
  show("tools:", tools.map((t: { name: string }) => t.name).join(", "));

  show("←", await call("program_query", { program: "python3" }));
  const started = await call("process_start", {
    command: "python3",
    args: ["-q", "-i"],
    pty,
    wait: "ready",
  });
  showStep(started);
  const id = started.id;

  for (
    const line of [
      "import os, sys",
      "print(os.isatty(0), sys.version.split()[0])",
      "sum(i * i for i in range(1000))",
      "'漢字 ' * 3",
    ]
  ) {
    showStep(await call("process_write", { id, content: line + "\n" }));
  }

  if (pty) {
    console.log("\nInterrupting a busy loop with Ctrl+C, as a keyboard would:");
    // The loop says once that it runs (its echo holds 'loop' + 'ing', only its output
    // "looping"): expect returns then, so the ^C stops the loop, not the REPL reading it.
    showStep(
      await call("process_write", {
        id,
        content:
          "for i in __import__('itertools').count():\n  if i == 0: print('loop' + 'ing')\n\n",
        expect: "^looping",
      }),
    );
    showStep(await call("process_write", { id, keys: ["Ctrl+C"] }));
    const screen = await call("process_screen", { id });
    show(
      "← screen:",
      `${screen.cols}x${screen.rows}, cursor ${screen.cursor.row}:${screen.cursor.col}`,
    );
    for (const line of screen.lines.slice(-4)) show("│", line);
  }

  const records =
    (await call("process_read", { id, source: "stdin", duration: 60, unit: "s" })).records;
  show("← what we typed (stdin records):", records.map((r: Rec) => r.content));
  show("←", await call("process_kill", { id }));
  const info = await call("process_inspect", { id });
  show("←", { status: info.status, exit_signal: info.exit_signal, io_count: info.io_count });
  show(
    "←",
    await call("program_record", { program: "python3", needs_pty: true, notes: "REPL (-i)" }),
  );
  show("←", await call("process_cleanup", { id }));
  console.log(
    "\nDone: the server kept every byte, answered each step, and left no process behind.",
  );
} finally {
  await portal[Symbol.asyncDispose]();
}
