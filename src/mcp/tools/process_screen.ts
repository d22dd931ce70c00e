import { defineTool } from "./tool.ts";
import { id, screenRequest, screenSnapshot } from "../../core/model/schema.ts";

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
  input: screenRequest.extend({ id }),
  output: screenSnapshot,
  // Not read-only: it restarts the idle timeout, and cols/rows resize the terminal.
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  run: ({ manager }, { id, ...options }) => manager.screen(id, options),
});
