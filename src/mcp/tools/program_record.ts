import { z } from "zod";
import { defineTool } from "./tool.ts";
import { programFact, programName, withoutNul } from "../../core/model/schema.ts";
import { NOTES_MAX } from "../../limits.ts";

export const programRecord = defineTool({
  name: "program_record",
  target: "none",
  title: "Record a program's PTY need",
  description:
    "Record whether a program needed a PTY (a TTY error, a hang on pipes, a TUI), for later " +
    "sessions.",
  input: z.object({
    program: programName.describe("Executable name, e.g. 'psql'."),
    needs_pty: z.boolean(),
    notes: withoutNul(z.string().max(NOTES_MAX)).optional().describe(
      "Caveats, e.g. which flags make it interactive.",
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
