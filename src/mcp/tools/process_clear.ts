import { z } from "zod";
import { defineTool } from "./tool.ts";
import { id, processId } from "../../core/model/schema.ts";

export const processClear = defineTool({
  name: "process_clear",
  title: "Clear records",
  description:
    "Delete all stored records (stdout, stderr, stdin) of a process, running or not, and reset " +
    "its process_read_new cursors; the process itself and its screen are untouched. Use it to " +
    "start reading from a clean slate. To remove an ended process entirely, use process_cleanup.",
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
