import { z } from "zod";
import { defineTool } from "./tool.ts";
import { id, processId, withoutNul } from "../../core/model/schema.ts";
import { SIGNAL_NAME_MAX_CHARS } from "../../limits.ts";
import { listSignals } from "../../signals.ts";

export const processSignal = defineTool({
  name: "process_signal",
  title: "Send a signal",
  description:
    "Send a signal, by name (SIGINT, int) or number, to a running process. Pipes: to its " +
    "process group (the program and its children). PTY: to the terminal's foreground process " +
    "group, as the keyboard does, so SIGINT to a shell running `sleep` stops the sleep, not " +
    "the shell. CTRL_C_EVENT / CTRL_BREAK_EVENT: on a PTY they type ^C / ^\\; on pipes they " +
    "send SIGINT / SIGQUIT. Windows: only a PTY takes SIGINT / CTRL_C_EVENT (typed ^C); " +
    "SIGTERM / SIGKILL end the program's whole tree. To end a program for good use " +
    "process_kill. Accepted: " +
    listSignals() + ".",
  input: z.object({
    id,
    signal: z.union([withoutNul(z.string().min(1).max(SIGNAL_NAME_MAX_CHARS)), z.number().int()])
      .describe(
        "Signal name or number, e.g. SIGINT, SIGTERM, 15, CTRL_C_EVENT.",
      ),
  }),
  output: z.object({ id: processId, signal: z.string(), delivered_to: z.string() }),
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  run: ({ manager }, { id, signal }) => manager.signal(id, signal),
});
