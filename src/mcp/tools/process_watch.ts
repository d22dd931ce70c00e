import { z } from "zod";
import { PortalError } from "../../errors.ts";
import { defineTool, READ_ONLY } from "./tool.ts";
import { id } from "../../core/model/schema.ts";

export const processWatch = defineTool({
  name: "process_watch",
  target: "process_here",
  title: "Let a person watch",
  description: "A link for your user's browser: watch your and kept processes live, take over (a " +
    "password); id: that one first.",
  input: z.object({ id: id.optional() }),
  output: z.object({ url: z.string() }),
  annotations: READ_ONLY,
  run: ({ manager, watch }, { id }) => {
    if (watch === undefined) {
      throw new PortalError("This Portal serves no watch page.", "unsupported");
    }
    if (id !== undefined) manager.watched(id); // An unknown id is an error, named as elsewhere.
    return { url: watch.link(id) };
  },
});
