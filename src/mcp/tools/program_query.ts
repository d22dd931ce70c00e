import { z } from "zod";
import { defineTool, READ_ONLY } from "./tool.ts";
import { programFact, programName } from "../../core/model/schema.ts";

export const programQuery = defineTool({
  name: "program_query",
  target: "none",
  title: "Does a program need a PTY?",
  description:
    "Before process_start: does this program need pty: true? (this machine's registry; " +
    "found: false is normal)",
  input: z.object({
    // A path counts as its name: the instructions say it.
    program: programName.describe("Executable name, e.g. 'ssh'."),
  }),
  output: z.object({ found: z.boolean(), fact: programFact.nullable() }),
  annotations: READ_ONLY,
  run: ({ registry }, { program }) => {
    const fact = registry.query(program);
    return { found: fact !== null, fact };
  },
});
