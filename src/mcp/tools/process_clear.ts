import { z } from "zod";
import { defineTool } from "./tool.ts";
import { id, processId } from "../../core/model/schema.ts";

export const processClear = defineTool({
  name: "process_clear",
  target: "process",
  title: "Clear records",
  description:
    "Delete a process's records and reset its read cursors; the process and screen stay.",
  input: z.object({ id }),
  output: z.object({ id: processId, cleared: z.number().describe("Records deleted.") }),
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    // A second call also deletes whatever a running program wrote in between.
    idempotentHint: false,
    openWorldHint: false,
  },
  run: ({ manager }, { id }) => manager.clear(id),
});
