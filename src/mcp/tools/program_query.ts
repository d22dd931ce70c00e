import { z } from "zod";
import { defineTool } from "./tool.ts";
import { programFact, programName } from "../../core/model/schema.ts";

export const programQuery = defineTool({
  name: "program_query",
  title: "Does a program need a PTY?",
  description:
    "Look up, before process_start, whether a program needs pty: true, in the registry that " +
    "persists across sessions on this machine. found false is a normal answer: decide by the " +
    "rules in the server instructions, then program_record what you saw. confirmed_count >= 2 " +
    "means settled; 1 is a hint to verify.",
  input: z.object({
    program: programName.describe(
      "Executable name, e.g. 'ssh' (a path is reduced to its name).",
    ),
  }),
  output: z.object({ found: z.boolean(), fact: programFact.nullable() }),
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  run: ({ registry }, { program }) => {
    const fact = registry.query(program);
    return { found: fact !== null, fact };
  },
});
