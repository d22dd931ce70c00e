import { z } from "zod";
import { defineTool } from "./tool.ts";
import { id, processId } from "../../core/model/schema.ts";

export const processCleanup = defineTool({
  name: "process_cleanup",
  title: "Remove an ended process",
  description:
    "Remove an exited or killed process and all its data (records, screen, metadata); its id " +
    "stops working. Irreversible. What it left running is killed first. A running process " +
    "is refused: process_kill it first.",
  input: z.object({ id }),
  output: z.object({ id: processId, removed: z.literal(true) }),
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    // A second call finds no such id and changes nothing.
    idempotentHint: true,
    openWorldHint: false,
  },
  run: ({ manager }, { id }) => manager.cleanup(id),
});
