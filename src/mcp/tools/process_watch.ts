import { z } from "zod";
import { PortalError } from "../../errors.ts";
import { defineTool } from "./tool.ts";
import { id } from "../../core/model/schema.ts";

export const processWatch = defineTool({
  name: "process_watch",
  title: "Let a person watch (and take over)",
  description:
    "A link for your user to open in a browser: the live terminal of process id (without " +
    "id: every process of yours), rendered as on their screen, with a download of its " +
    "recording (asciicast). Give it to them when they want to see what you are doing, or " +
    "to answer a prompt you should not (a password, a confirmation). The page is read-only " +
    "until they press Take over; then process_write on that process is refused (a person is " +
    'typing) until they Give back; process_read_new with wait: "ready" still works, ' +
    'process_inspect shows controlled_by: "person", and your next reply on the process ' +
    "holds person_input: what they typed (secrets redacted). The link holds a secret " +
    "token: give it only to your user. Served on 127.0.0.1 (over --http also at /watch).",
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
