import { z } from "zod";
import { defineTool } from "./tool.ts";

export const processKillAll = defineTool({
  name: "process_kill_all",
  title: "Kill ALL processes",
  description:
    "WARNING: immediately kills EVERY running process this server manages (all sessions, " +
    "REPLs, ssh connections), with no confirmation; unsaved work in them is lost. Use " +
    "process_kill to end one. Records stay readable until process_cleanup. Returns the ids " +
    "killed.",
  input: z.object({}),
  output: z.object({ killed: z.array(z.number()) }),
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  run: ({ manager }) => manager.killAll(),
});
