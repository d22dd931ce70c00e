import { z } from "zod";
import { defineTool, READ_ONLY } from "./tool.ts";
import { id, processDetails } from "../../core/model/schema.ts";

export const processInspect = defineTool({
  name: "process_inspect",
  target: "process",
  title: "Inspect a process",
  description:
    "All about one process: launch, end, times, record counts, policy; a shell's cwd and " +
    "last_command.",
  input: z.object({ id }),
  output: processDetails,
  annotations: READ_ONLY,
  run: ({ manager }, { id }) => manager.inspect(id),
});
