import { defineTool } from "./tool.ts";
import {
  maxCharsParam,
  name,
  processSummary,
  startRequest,
  stepReply,
  waitRequest,
} from "../../core/model/schema.ts";
import { STEP_MAX_CHARS } from "../../limits.ts";

export const processStart = defineTool({
  name: "process_start",
  target: "start",
  title: "Start a program",
  description: "Start a program (ssh, gdb, psql, REPLs). No shell: sh -c for pipes. " +
    "pty: true if interactive/full-screen (program_query first; in doubt, true), false " +
    "(default) for batch. wait 'ready': to its first prompt. A policy may refuse or confine it.",
  input: startRequest.extend({
    ...waitRequest("none").shape,
    max_chars: maxCharsParam(STEP_MAX_CHARS),
    // Taken by the remote layer (src/remote/remotes.ts) before the core sees the call.
    machine: name().optional().describe("ssh destination: run in its Portal."),
    host: name().optional().describe("Deprecated: use machine."),
  }),
  // Nothing is typed before a start's reply, and no shell command has finished yet.
  output: processSummary.extend(
    stepReply.omit({ command: true, commands: true, echo_chars: true }).partial().shape,
  ),
  annotations: {
    readOnlyHint: false,
    // The program runs with the server's rights and may change anything they allow.
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  run: ({ manager }, args, control) => manager.start(args, control),
});
