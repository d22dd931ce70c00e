/**
 * The host's side of `portal attach`: a person's terminal joins a process
 * (any client's, found by id or name). It gets the screen as it stands (the
 * emulator's, or for pipes nothing), then every chunk of output after it, as
 * stored (secrets replaced), and when the program ends, how it ended; what
 * the person types goes to the program and is recorded as input, as the
 * agent's is (at a password prompt, as a secret). Several terminals and the
 * agent may share one program; closing the connection detaches.
 *
 * @module
 */
import type { ManagedProcess } from "../../core/process/managed_process.ts";
import { encodeFrame, type Frame, FrameReader } from "./frames.ts";
import { connWriter, encodeLine, type LineReader, type Welcome } from "../hello.ts";
import type { Shared } from "../shared.ts";

/** Serves an attached terminal on `conn` until it detaches or the program ends. */
export async function serveAttach(
  conn: Deno.Conn,
  lines: LineReader,
  target: string,
  shared: Shared,
  welcome: Welcome,
): Promise<void> {
  const entry = /^\d+$/.test(target) ? shared.pool.get(Number(target)) : shared.pool.named(target);
  if (!entry) {
    welcome.error = `no process has the id or name "${target}": \`portal ps\` lists them`;
    await conn.write(encodeLine(welcome));
    return;
  }
  const { process } = entry;
  welcome.process = shared.manager({ seesAll: true }).list().find((p) => p.id === process.id);
  const send = connWriter(conn);
  await send(encodeLine(welcome));
  // Output after the snapshot's seq follows it; what came before is in the picture.
  const pending: { bytes: Uint8Array; seq: number }[] = [];
  let live = false;
  const stop = process.watched.observe((event) => {
    if (event.kind !== "output") return;
    if (live) void send(encodeFrame("output", event.bytes));
    else pending.push(event);
  });
  try {
    const shownSeq = process.outputSeq;
    await send(encodeFrame("screen", await picture(process)));
    for (const { bytes, seq } of pending) {
      if (seq > shownSeq) await send(encodeFrame("output", bytes));
    }
    live = true;
    const frames = new FrameReader(lines.reader, lines.rest());
    const typed = (async () => {
      for (let frame: Frame | undefined; (frame = await frames.next());) {
        if (frame.type === "input" && process.running) type(process, frame.payload);
      }
    })().catch(() => {});
    await Promise.race([process.ended, typed]);
    if (!process.running) {
      const { status, exit_code, exit_signal } = process.describe();
      await send(encodeFrame("end", JSON.stringify({ status, exit_code, exit_signal })));
    }
  } finally {
    stop();
  }
}

/** The screen as text to draw, with where its cursor is (JSON: pipes have none). */
async function picture(process: ManagedProcess): Promise<string> {
  if (!process.hasScreen) return JSON.stringify(null);
  return JSON.stringify(await process.screen({}));
}

/** What a person typed, to the program, recorded as input (hidden at a password prompt). */
function type(process: ManagedProcess, bytes: Uint8Array): void {
  try {
    // The terminal sends whole characters (attach.ts decodes as it reads).
    process.input.send([{ text: new TextDecoder().decode(bytes), secret: process.hidesInput }]);
  } catch { /* it stopped reading, or ended: the end frame says so */ }
}
