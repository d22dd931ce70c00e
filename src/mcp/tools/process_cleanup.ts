import { z } from "zod";
import { defineTool } from "./tool.ts";
import { id, processId } from "../../core/model/schema.ts";

export const processCleanup = defineTool({
  name: "process_cleanup",
  target: "process_removed",
  title: "Remove an ended process",
  description:
    "Remove an ended process and all its data for good; what it left running is killed " +
    "first.",
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
