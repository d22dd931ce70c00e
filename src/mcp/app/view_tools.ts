/**
 * The tools of the terminal view (an MCP App), for the view only
 * (`_meta.ui.visibility: ["app"]`: a client lists them to no model): each
 * takes the view's token (views.ts), which names its process, and does
 * what the watch page's socket does (src/watch/page_socket.ts): the
 * output since a cursor (a long poll of at most a second, so the view needs
 * no connection of its own), the screen anew, keys, a resize, Take over and
 * Give back, and the recording.
 *
 * @module
 */
import { z } from "zod";
import { PortalError } from "../../errors.ts";
import { CONTENT_MAX_CHARS, TERMINAL_SIZE } from "../../limits.ts";
import { ASCIICAST_TYPE } from "../../core/recording/asciicast.ts";
import { type AnyTool, defineTool, READ_ONLY } from "../tools/tool.ts";
import { findView } from "./views.ts";

/** A poll waits at most this long for output: well within any client's request timeout. */
export const POLL_MAX_MS = 1000;
/** The recording a view downloads is cut here (`portal export` gives it whole). */
export const RECORDING_MAX_CHARS = 8 * 1024 * 1024;

const token = z.string().min(1).max(100);
const events = z.object({
  cursor: z.number(),
  events: z.array(z.unknown()),
});
// A view's token names its process, on this server: its tools have no target to route (`none`).
const acts = { ...READ_ONLY, readOnlyHint: false, idempotentHint: false };

const poll = defineTool({
  name: "view_poll",
  target: "none",
  title: "Terminal view: what changed",
  description: "The terminal view's events after cursor (screen, output as base64, resize, " +
    "control, end), waiting up to wait_ms (default and most 1000) for one.",
  input: z.object({
    token,
    cursor: z.number().int().min(0),
    wait_ms: z.number().int().min(0).max(POLL_MAX_MS).optional(),
  }),
  output: events,
  annotations: READ_ONLY,
  run: ({ manager }, { token, cursor, wait_ms }) =>
    findView(manager, token).feed.poll(cursor, wait_ms ?? POLL_MAX_MS),
});

const screen = defineTool({
  name: "view_screen",
  target: "none",
  title: "Terminal view: the screen",
  description: "Starts the terminal view over: its events from the current screen on.",
  input: z.object({ token }),
  output: events,
  annotations: READ_ONLY,
  run: async ({ manager }, { token }) => {
    const { process, feed } = findView(manager, token);
    feed.restart();
    const { cursor, events } = await feed.poll(0, POLL_MAX_MS);
    // Who holds the keyboard now: later changes come as events.
    const control = { type: "control", controlled_by: process.controlledBy };
    return { cursor, events: [{ ...control, mine: process.holder === feed }, ...events] };
  },
});

const keys = defineTool({
  name: "view_keys",
  target: "none",
  title: "Terminal view: keys",
  description: "Keys the person typed in the terminal view, as a terminal sends them; only " +
    "after Take over.",
  input: z.object({ token, data: z.string().min(1).max(CONTENT_MAX_CHARS) }),
  output: z.object({ sent: z.number() }),
  annotations: acts,
  run: ({ manager }, { token, data }) => {
    const { process, feed } = findView(manager, token);
    process.typeAsPerson(feed, data);
    return { sent: data.length };
  },
});

const size = z.number().int().min(TERMINAL_SIZE.min).max(TERMINAL_SIZE.max);
const resize = defineTool({
  name: "view_resize",
  target: "none",
  title: "Terminal view: resize",
  description: "Resizes the program's terminal to the view; only while the person holds the " +
    "keyboard.",
  input: z.object({ token, cols: size, rows: size }),
  output: z.object({ cols: z.number(), rows: z.number() }),
  annotations: acts,
  run: async ({ manager }, { token, cols, rows }) => {
    const { process, feed } = findView(manager, token);
    if (process.holder !== feed) {
      throw new PortalError(
        "Press Take over first: the agent's terminal keeps its size.",
        "conflict",
      );
    }
    await manager.screen(process.id, { cols, rows });
    return { cols, rows };
  },
});

const control = defineTool({
  name: "view_control",
  target: "none",
  title: "Terminal view: Take over, Give back",
  description: "take_over: the person's keys go to the program and the agent's writes are " +
    "refused; give_back: the keyboard returns to the agent.",
  input: z.object({ token, action: z.enum(["take_over", "give_back"]) }),
  output: z.object({ controlled_by: z.string(), mine: z.boolean() }),
  annotations: acts,
  run: ({ manager }, { token, action }) => {
    const { process, feed } = findView(manager, token);
    if (action === "take_over") process.takeOver(feed);
    else process.giveBack(feed);
    return { controlled_by: process.controlledBy, mine: process.holder === feed };
  },
});

const recording = defineTool({
  name: "view_recording",
  target: "none",
  title: "Terminal view: recording",
  description: "The PTY process's recording as asciicast v2 text, for the view's download.",
  input: z.object({ token }),
  output: z.object({
    name: z.string(),
    mime_type: z.string(),
    text: z.string(),
    truncated: z.boolean(),
  }),
  annotations: READ_ONLY,
  run: ({ manager }, { token }) => {
    const { name, lines } = findView(manager, token).process.cast();
    let text = "";
    let truncated = false;
    for (const line of lines) {
      if (text.length + line.length > RECORDING_MAX_CHARS) {
        truncated = true;
        break;
      }
      text += line;
    }
    return { name, mime_type: ASCIICAST_TYPE, text, truncated };
  },
});

/** The view's tools, in the order a UI client's `tools/list` shows them after Portal's own. */
export const VIEW_TOOLS: readonly AnyTool[] = [poll, screen, keys, resize, control, recording];
