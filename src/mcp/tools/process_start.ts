import { defineTool } from "./tool.ts";
import {
  maxCharsParam,
  processSummary,
  startRequest,
  stepReply,
  waitRequest,
} from "../../core/model/schema.ts";
import { STEP_MAX_CHARS } from "../../limits.ts";

export const processStart = defineTool({
  name: "process_start",
  title: "Start a program",
  description: "Start a program for interactive use (ssh, gdb, psql, REPLs, vim, less, htop). No " +
    "shell: use sh -c for pipes. pty: true for anything interactive or full-screen " +
    "(program_query first; when in doubt, true), false (default) for batch programs. wait " +
    '"ready" returns the banner and first prompt.',
  input: startRequest.extend({
    ...waitRequest("none").shape,
    max_chars: maxCharsParam(`Default ${STEP_MAX_CHARS}.`),
  }),
  output: processSummary.extend(stepReply.partial().shape),
  annotations: {
    readOnlyHint: false,
    // The program runs with the server's rights and may change anything they allow.
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  run: ({ manager }, args, control) => manager.start(args, control),
});
