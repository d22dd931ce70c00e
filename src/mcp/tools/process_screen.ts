import { z } from "zod";
import { defineTool } from "./tool.ts";
import { id } from "./schemas.ts";

export const processScreen = defineTool({
  name: "process_screen",
  title: "Read a terminal screen",
  description:
    "The screen of a PTY process as a terminal emulator renders it: lines (trailing blanks " +
    "trimmed, blank rows at the bottom omitted), cursor row/col (0-based), cols/rows, the " +
    "active buffer (alternate while a full-screen program like vim, less or htop runs) and the " +
    "window title. Use it for TUIs, whose records are garbled fragments. Without cols/rows it " +
    "only reads; with them it first resizes the terminal (the program gets SIGWINCH). " +
    "scrollback: also return up to that many lines above the screen. Readable after exit " +
    "until process_cleanup. Pipe processes have no screen.",
  input: {
    id,
    buffer: z.enum(["primary", "alternate"]).optional().describe(
      "Which buffer to render; default: the active one.",
    ),
    cols: z.number().int().min(1).max(1000).optional().describe("Resize to this width first."),
    rows: z.number().int().min(1).max(1000).optional().describe("Resize to this height first."),
    scrollback: z.number().int().min(0).max(5000).optional().describe(
      "Lines above the screen to include (primary buffer). Default 0.",
    ),
  },
  output: {
    buffer: z.enum(["primary", "alternate"]),
    active_buffer: z.enum(["primary", "alternate"]),
    cols: z.number(),
    rows: z.number(),
    cursor: z.object({ row: z.number(), col: z.number() }),
    title: z.string().nullable(),
    lines: z.array(z.string()),
    scrollback: z.array(z.string()).optional(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  run: ({ manager }, { id, ...options }) => manager.screen(id, options),
});
