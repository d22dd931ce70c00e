import { z } from "zod";
import { defineTool } from "./tool.ts";
import { killAllResult } from "../../core/model/schema.ts";

export const processKillAll = defineTool({
  name: "process_kill_all",
  title: "Kill ALL processes",
  description:
    "WARNING: immediately kills EVERY running process this server manages (all sessions, " +
    "REPLs, ssh connections), and what exited ones left running, with no confirmation; " +
    "unsaved work in them is lost. Use process_kill to end one. Records stay readable until " +
    "process_cleanup. Reports per process: one that fails never stops the rest.",
  input: z.object({}),
  output: killAllResult,
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  run: ({ manager }) => manager.killAll(),
});
