/**
 * The host's side of `portal attach`: a person's terminal joins a process
 * (any client's, found by id or name). It gets the screen as it stands (the
 * emulator's, or for pipes the latest output), then every chunk of output
 * after it, as stored (secrets replaced), bounded for a terminal that stops
 * reading (terminal_feed.ts), and when the program ends, how it ended; what
 * the person types goes to the program and is recorded as input, as the
 * agent's is (at a password prompt, as a secret), and the agent's next reply
 * on the process says it (`person_input`). Several terminals and the
 * agent may share one program; closing the connection detaches, and so does
 * a frame the host does not take (too large, of an unknown type).
 *
 * @module
 */
import type { ManagedProcess } from "../../core/process/managed_process.ts";
import { ATTACH_INPUT_MAX_BYTES } from "../../limits.ts";
import { type Frame, FrameReader } from "./frames.ts";
import { TerminalFeed } from "./terminal_feed.ts";
import { connWriter, encodeLine, type LineReader, type Welcome } from "../hello.ts";
import type { ProcessManager } from "../../core/process/manager.ts";
import type { ProcessPool } from "../../core/process/pool.ts";

/**
 * Serves an attached terminal on `conn` until it detaches or the program ends.
 * `elsewhere`: the `MACHINE:ID` of a process this host runs on another
 * machine (named by its id or name here), which that machine's Portal serves.
 */
export async function serveAttach(
  conn: Deno.Conn,
  lines: LineReader,
  target: string,
  shared: { pool: ProcessPool; manager(session: { seesAll: true }): ProcessManager },
  welcome: Welcome,
  elsewhere: (target: string) => string | undefined,
): Promise<void> {
  const entry = shared.pool.pick(target);
  if (!entry) {
    const remote = elsewhere(target);
    // Its id here means nothing there: the person gets the target that machine knows it by.
    welcome.error = remote
      ? `"${target}" runs on ${remote.slice(0, remote.lastIndexOf(":"))}: ` +
        `\`portal attach ${remote}\` joins it there`
      : `no process has the id or name "${target}": \`portal ps\` lists them`;
    await conn.write(encodeLine(welcome));
    return;
  }
  const { process } = entry;
  welcome.process = shared.manager({ seesAll: true }).list().find((p) => p.id === process.id);
  await connWriter(conn)(encodeLine(welcome));
  const feed = new TerminalFeed(conn, process);
  try {
    await feed.started();
    const frames = new FrameReader(lines.reader, ATTACH_INPUT_MAX_BYTES, lines.rest());
    const typed = (async () => {
      for (let frame: Frame | undefined; (frame = await frames.next());) {
        if (frame.type === "input" && process.running) type(process, frame.payload);
      }
    })().catch(() => {});
    await Promise.race([process.ended, typed]);
    if (!process.running) {
      const { status, exit_code, exit_signal } = process.describe();
      await Promise.race([feed.end(JSON.stringify({ status, exit_code, exit_signal })), typed]);
    }
  } finally {
    feed.close();
  }
}

/**
 * What a person typed, to the program, recorded as input (hidden at a password prompt), and
 * told in the agent's next reply on it (`person_input`), as what is typed on the watch page is.
 */
function type(process: ManagedProcess, bytes: Uint8Array): void {
  try {
    // The terminal sends whole characters (attach.ts decodes as it reads).
    const text = new TextDecoder().decode(bytes);
    const { record } = process.input.send([{ text, secret: process.hidesInput }]);
    process.watched.personTyped(record);
  } catch { /* it stopped reading, or ended: the end frame says so */ }
}
