/**
 * `portal attach ID|NAME`: a person joins a program of this user's host
 * (`MACHINE:NAME`: one on another machine, remote_attach.ts)
 * from a real terminal, as `tmux attach` does. The terminal goes raw; the
 * program's screen is drawn at once (as text, from its emulator: colours
 * come back as the program redraws), then its output as it comes; keys go to
 * the program (recorded as input, as the agent's). **Ctrl+]** detaches and
 * leaves the program running. A terminal that stops reading while the
 * program floods (Ctrl+S, a stalled link) is not queued for: once it reads
 * again it gets the screen as it stands, the output it missed skipped (it is
 * in the records). A program that has ended shows its last
 * screen, and attach exits 0; an unknown id or name exits 1 with one line.
 *
 * @module
 */
import type { ScreenSnapshot } from "../core/model/schema.ts";
import { encodeFrame, FrameReader } from "../host/attach/frames.ts";
import { reachHost } from "../host/door.ts";
import { ATTACH_FRAME_MAX_BYTES } from "../limits.ts";
import { VERSION } from "../version.ts";
import { remoteAttach, remoteTarget } from "../remote/remote_attach.ts";
import { visible } from "./visible.ts";

/** The key that detaches: Ctrl+] (GS), as telnet's escape. */
const DETACH = 0x1d;

const encoder = new TextEncoder();

/** Attaches this terminal to `target`; returns the exit status. */
export async function attach(target: string, env: Record<string, string>): Promise<number> {
  const remote = remoteTarget(target);
  if (remote) return await remoteAttach(remote, env);
  let host;
  try {
    host = await reachHost(env, { portal: VERSION, role: "attach", target }, { start: false });
  } catch (error) {
    console.error(`portal: ${(error as Error).message}`);
    return 1;
  }
  if (!host) {
    console.error("portal: no Portal host is running for this records database: nothing to attach");
    return 1;
  }
  const process = host.welcome.process!;
  // What the program supplied is shown, never acted on by this terminal.
  const label = process.name
    ? `${visible(process.name)} (id ${process.id})`
    : `process ${process.id}`;
  const command = visible(process.command);
  const out = (text: string) => Deno.stdout.writeSync(encoder.encode(text));
  const frames = new FrameReader(host.lines.reader, ATTACH_FRAME_MAX_BYTES, host.lines.rest());
  const first = await frames.next();
  const screen = first?.type === "screen"
    ? JSON.parse(new TextDecoder().decode(first.payload)) as ScreenSnapshot | null
    : null;
  const full = screen?.active_buffer === "alternate";
  if (process.status !== "running") {
    // The host says how it ended (exit code, signal) in the frame after its screen.
    let ending: Ending = process;
    for (let frame; (frame = await frames.next());) {
      if (frame.type !== "end") continue;
      ending = JSON.parse(new TextDecoder().decode(frame.payload));
      break;
    }
    out(`[portal] ${label}, ${command}, ${howEnded(ending)}; its last screen:\r\n`);
    if (screen) out(draw(screen, false));
    out("\r\n");
    host.conn.close();
    return 0;
  }
  // Raw before anything is shown: what a person types once they see the screen goes as typed.
  const raw = Deno.stdin.isTerminal();
  if (raw) Deno.stdin.setRaw(true);
  out(`[portal] attached to ${label}, ${command}: Ctrl+] detaches (it runs on)\r\n`);
  if (screen) out(draw(screen, full));
  const conn = host.conn;
  let detached = false;
  const typing = (async () => {
    const decoder = new TextDecoder();
    const writer = conn.writable.getWriter();
    for await (const chunk of Deno.stdin.readable) {
      const at = chunk.indexOf(DETACH);
      const text = decoder.decode(at < 0 ? chunk : chunk.subarray(0, at), { stream: at < 0 });
      if (text) await writer.write(encodeFrame("input", text));
      if (at >= 0) return (detached = true);
    }
    return (detached = true);
  })().catch(() => true);
  let ended: Ending | undefined;
  const showing = (async () => {
    for (let frame; (frame = await frames.next());) {
      if (frame.type === "output") Deno.stdout.writeSync(frame.payload);
      // This terminal fell behind a flood: the host skipped output, and sends the screen now.
      if (frame.type === "screen") redraw(frame.payload);
      if (frame.type === "end") ended = JSON.parse(new TextDecoder().decode(frame.payload));
    }
  })().catch(() => {});
  await Promise.race([typing, showing]);
  if (raw) Deno.stdin.setRaw(false);
  if (full) out("\x1b[?1049l");
  try {
    conn.close();
  } catch { /* the host hung up */ }
  if (detached && !ended) {
    out(`\r\n[portal] detached from ${label}; it runs on\r\n`);
  } else {
    const how = ended ? howEnded(ended) : "is gone (the host ended)";
    out(`\r\n[portal] ${label} ${how}\r\n`);
  }
  return 0;
}

/** A screen sent again after output was skipped (a pipe's is null: its latest output follows). */
function redraw(payload: Uint8Array): void {
  const screen = JSON.parse(new TextDecoder().decode(payload)) as ScreenSnapshot | null;
  let text = "\r\n[portal] this terminal fell behind: output skipped (it is in the records)\r\n";
  if (screen) text += draw(screen, screen.active_buffer === "alternate");
  Deno.stdout.writeSync(encoder.encode(text));
}

/** How a process ended, as far as the host said. */
interface Ending {
  status: string;
  exit_code?: number | null;
  exit_signal?: string | null;
}

/** "was killed (SIGTERM)", "exited with code 0", or "has exited" when the code is not known. */
function howEnded({ status, exit_code, exit_signal }: Ending): string {
  if (status === "killed") return `was killed${exit_signal ? ` (${exit_signal})` : ""}`;
  if (exit_signal) return `ended by ${exit_signal}`;
  return exit_code === null || exit_code === undefined
    ? "has exited"
    : `exited with code ${exit_code}`;
}

/**
 * The screen as a terminal draws it: a full-screen program's (alternate
 * buffer) on a cleared alternate screen of this terminal, its cursor placed;
 * a line program's as lines below the banner, up to its cursor.
 */
function draw(screen: ScreenSnapshot, full: boolean): string {
  const { lines, cursor } = screen;
  if (full) {
    const rows = lines.map((line, row) => `\x1b[${row + 1};1H${line}`).join("");
    return `\x1b[?1049h\x1b[H\x1b[2J${rows}\x1b[${cursor.row + 1};${cursor.col + 1}H`;
  }
  const shown = lines.slice(0, cursor.row + 1);
  while (shown.length <= cursor.row) shown.push("");
  const last = shown.at(-1)!;
  // The cursor may sit past the last character (after a prompt's space).
  const pad = " ".repeat(Math.max(0, cursor.col - last.length));
  return shown.join("\r\n") + pad + `\r\x1b[${cursor.col + 1}G`;
}
