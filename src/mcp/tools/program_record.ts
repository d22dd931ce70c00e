import { z } from "zod";
import { defineTool } from "./tool.ts";
import { programFact, programName, withoutNul } from "../../core/model/schema.ts";
import { NOTES_MAX } from "../../limits.ts";

export const programRecord = defineTool({
  name: "program_record",
  title: "Record whether a program needs a PTY",
  description:
    "Record what you observed about a program, for every later session on this machine: " +
    "needs_pty true if it required a terminal (TTY error, hang or silence on pipes, TUI), false " +
    "if it worked on pipes. Record first encounters, negatives included. The same value again " +
    "raises confirmed_count; the opposite value replaces the fact with count 1. notes: " +
    "flag-specific caveats (e.g. 'docker run -it only, not docker build'); omitted notes keep " +
    "the earlier ones.",
  input: z.object({
    program: programName.describe("Executable name, e.g. 'psql'."),
    needs_pty: z.boolean().describe("Whether it needs a PTY."),
    notes: withoutNul(z.string().max(NOTES_MAX)).optional().describe(
      `Caveats, e.g. which flags make it interactive (at most ${NOTES_MAX} characters).`,
    ),
  }),
  output: programFact,
  annotations: {
    readOnlyHint: false,
    // It only adds to the registry; a contradiction replaces one fact, as documented.
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  run: ({ registry }, { program, needs_pty, notes }) => registry.record(program, needs_pty, notes),
});
