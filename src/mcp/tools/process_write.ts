import { z } from "zod";
import { defineTool } from "./tool.ts";
import {
  id,
  maxCharsParam,
  name,
  processId,
  shellIntegration,
  stepReply,
  waitRequest,
} from "../../core/model/schema.ts";
import {
  CONTENT_MAX_CHARS,
  KEYS_MAX,
  SECRET_LABEL_MAX,
  SECRET_MAX_CHARS,
  STEP_MAX_CHARS,
} from "../../limits.ts";

export const processWrite = defineTool({
  name: "process_write",
  target: "process",
  title: "Type and get the answer",
  description:
    "Type into a running process and wait until it reads again: one call per step, the reply " +
    "is its answer. content is typed (PTY: a line end is Enter), then " +
    "keys (Enter, Up, Ctrl+C…). paste: true for code into Python ≥ 3.13 or an editor in " +
    "insert mode. Passwords: secret_env or secret_prompt.",
  input: z.object({
    id,
    content: z.string().max(CONTENT_MAX_CHARS).optional(),
    // Pressed after content, by name: the description and the instructions say it.
    keys: z.array(z.string().max(KEYS_MAX.chars)).max(KEYS_MAX.count).optional(),
    paste: z.boolean().optional(),
    secret: z.string().max(SECRET_MAX_CHARS).optional().describe(
      "Typed after content.",
    ),
    secret_env: name().optional().describe("A server variable marked secret, typed."),
    secret_prompt: z.string().max(SECRET_LABEL_MAX).optional().describe(
      "Label: the person is asked.",
    ),
    force: z.boolean().optional().describe("Type the secret even though echo is on."),
    eof: z.boolean().optional().describe(
      "Then end the input (pipes: close stdin; PTY: Ctrl+D).",
    ),
    integrate: z.boolean().optional().describe("Alone: hook the shell in front (ssh)."),
    ...waitRequest("ready").shape,
    max_chars: maxCharsParam(STEP_MAX_CHARS),
  }),
  output: z.object({
    id: processId,
    bytes_written: z.number(),
    pasted: z.boolean().optional(),
    ...stepReply.shape,
    shell_integration: shellIntegration.optional(),
  }),
  annotations: {
    readOnlyHint: false,
    // What is typed into a shell or a database client can change anything.
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  run: ({ manager }, { id, ...request }, control) => manager.write(id, request, control),
});
