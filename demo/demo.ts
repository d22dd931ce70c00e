/**
 * The demo: a real MCP client (the official SDK) starts Portal over stdio and
 * drives a Python REPL on a pseudo-terminal through it, the way an agent
 * would, printing every tool call and what came back.
 *
 * Run: deno task demo   (needs python3 on PATH)
 */
import { Portal, type Rec } from "../dev/portal_client.ts";

const pty = Deno.build.os !== "windows";
const portal = await Portal.start();
const show = (label: string, value: unknown) =>
  console.log(`  ${label} ${typeof value === "string" ? value : JSON.stringify(value)}`);

async function call(tool: string, args: Record<string, unknown> = {}) {
  console.log(`\n→ ${tool} ${JSON.stringify(args)}`);
  const result = await portal.call(tool, args);
  return result;
}

/** Reads new output until `done` holds, and shows it. */
async function readUntil(id: number, what: string, done: (text: string) => boolean) {
  console.log(`\n→ process_read_new {"id":${id}} … until ${what}`);
  const text = await portal.readUntil(id, done, { timeoutMs: 15_000 });
  for (const line of text.split("\n")) show("│", line);
  return text;
}

/** Reads new output until the REPL shows its prompt again. */
const untilPrompt = (id: number) =>
  readUntil(id, 'the ">>> " prompt', (t) => t.trimEnd().endsWith(">>>"));

try {
  console.log(
    `Portal demo: a Python REPL driven through MCP (server: ${portal.client.getServerVersion()?.name})`,
  );
  const { tools } = await portal.client.listTools();
  show("tools:", tools.map((t: { name: string }) => t.name).join(", "));

  show("←", await call("program_query", { program: "python3" }));
  const started = await call("process_start", { command: "python3", args: ["-q", "-i"], pty });
  show("←", started);
  const id = started.id;
  await untilPrompt(id);

  for (
    const line of [
      "import os, sys",
      "print(os.isatty(0), sys.version.split()[0])",
      "sum(i * i for i in range(1000))",
      "'漢字 ' * 3",
    ]
  ) {
    show("←", await call("process_write", { id, content: line + "\n" }));
    await untilPrompt(id);
  }

  if (pty) {
    console.log("\nInterrupting a busy loop with Ctrl+C (\\u0003), as a keyboard would:");
    await call("process_write", { id, content: "while True: pass\n\n" });
    // Python echoes the empty line that ends the loop once it has read it; a ^C
    // sent before that would only discard the unread input, not stop a loop.
    await readUntil(
      id,
      "Python has read the empty line, so the loop runs",
      (t) => t.endsWith("... \n"),
    );
    await call("process_write", { id, content: "\u0003" });
    await untilPrompt(id);
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
  await portal.close();
}
