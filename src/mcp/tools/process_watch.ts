import { z } from "zod";
import { PortalError } from "../../errors.ts";
import { defineTool } from "./tool.ts";
import { id } from "../../core/model/schema.ts";

export const processWatch = defineTool({
  name: "process_watch",
  title: "Let a person watch (and take over)",
  description:
    "A link for your user's browser: the live terminal of process id (no id: all of yours), " +
    "and its recording (asciicast). Give it when they want to watch, or to answer a prompt you " +
    "should not (a password). Read-only until they press Take over; then process_write there " +
    'is refused until they Give back (process_read_new with wait: "ready" still works), ' +
    'controlled_by is "person", and your next reply holds person_input: what they typed. The ' +
    "link holds a secret token: give it only to your user.",
  input: z.object({ id: id.optional() }),
  output: z.object({ url: z.string() }),
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  run: ({ manager, watch }, { id }) => {
    if (watch === undefined) throw new PortalError("This Portal serves no watch page.");
    if (id !== undefined) manager.watched(id); // An unknown id is an error, named as elsewhere.
    return { url: watch.link(id) };
  },
});
