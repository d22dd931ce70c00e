import { defineTool } from "./tool.ts";
import { id, screenRequest, screenSnapshot } from "../../core/model/schema.ts";

export const processScreen = defineTool({
  name: "process_screen",
  target: "process",
  title: "Read a terminal screen",
  description:
    "A PTY process's rendered screen (lines, cursor, title), also after exit; cols/rows " +
    "resize it first.",
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
