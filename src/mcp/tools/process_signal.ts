import { z } from "zod";
import { defineTool } from "./tool.ts";
import { id, processId, withoutNul } from "../../core/model/schema.ts";
import { SIGNAL_NAME_MAX_CHARS } from "../../limits.ts";

export const processSignal = defineTool({
  name: "process_signal",
  target: "process",
  title: "Send a signal",
  description: "A signal (name or number): PTY: to the foreground group, as a keypress; " +
    "pipes: to the program's group.",
  input: z.object({
    id,
    signal: z.union([withoutNul(z.string().min(1).max(SIGNAL_NAME_MAX_CHARS)), z.number().int()])
      .describe("e.g. SIGINT, SIGTERM, 15, CTRL_C_EVENT."),
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
