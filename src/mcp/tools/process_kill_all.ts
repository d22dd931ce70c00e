import { z } from "zod";
import { defineTool } from "./tool.ts";
import { killAllResult } from "../../core/model/schema.ts";

export const processKillAll = defineTool({
  name: "process_kill_all",
  target: "kill_all",
  title: "Kill ALL processes",
  description: "WARNING: immediately kills EVERY running process this client started (kept " +
    "too); other clients' kept ones run on.",
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
