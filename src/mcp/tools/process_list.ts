import { z } from "zod";
import { defineTool, READ_ONLY } from "./tool.ts";
import { processList as output } from "../../core/model/schema.ts";

export const processList = defineTool({
  name: "process_list",
  target: "list",
  title: "List processes",
  description:
    "The processes this client sees (its own, kept ones; sessionless HTTP: all): status and state.",
  input: z.object({}),
  output,
  annotations: READ_ONLY,
  run: ({ manager }) => ({ processes: manager.list() }),
});
