/**
 * A remote Portal's reply made this Portal's own: checked against the
 * tool's output schema (a reply that does not fit is refused, and what the
 * schema does not name is dropped), then every process id the schema marks
 * (the `processId` fields: a reply's `id`, a list's ids, a `failed` entry's)
 * turned into this side's id, and `machine` beside a process's id set to the
 * machine it came from. An object that names a process this side does not
 * know (another client's, there) is left out of its list; a reply whose own
 * `id` is unknown is refused. No list of field names: the schema says.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { processId } from "../core/model/schema.ts";
 * import { relayedReply } from "./relayed_reply.ts";
 *
 * const output = z.object({ id: processId, killed: z.array(processId) });
 * const local = (remoteId: number) => remoteId === 3 ? 9 : undefined;
 * const reply = { id: 3, killed: [3, 4], extra: "dropped" };
 * assert.deepEqual(relayedReply(output, reply, local, "db1", "process_kill"), {
 *   id: 9,
 *   killed: [9],
 *   machine: "db1",
 * });
 * assert.throws(
 *   () => relayedReply(output, { id: "__proto__", killed: [] }, local, "db1", "process_kill"),
 *   /db1's reply to process_kill is not a Portal reply \(id: /,
 * );
 * ```
 * @module
 */
import { z } from "zod";
import { processId } from "../core/model/schema.ts";
import { PortalError, quote } from "../errors.ts";

type Result = Record<string, unknown>;

/** What stands in for an object or id that names a process this side does not know. */
const UNKNOWN = Symbol("unknown process");

/**
 * `reply`, `machine`'s answer to `tool` whose output schema is `output`, with
 * this side's ids (`local` maps a remote id, or says it is unknown); a
 * {@link PortalError} when it does not fit.
 */
export function relayedReply(
  output: z.ZodType,
  reply: unknown,
  local: (remoteId: number) => number | undefined,
  machine: string,
  tool: string,
): Result {
  const refused = (why: string) =>
    new PortalError(
      `${machine}'s reply to ${tool} is not a Portal reply (${why}): refused. The program there ` +
        "is as that reply left it; check what answers there (its Portal's version: " +
        "process_inspect's remote_version).",
    );
  const parsed = output.safeParse(reply);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw refused(`${issue.path.join(".") || "the reply"}: ${quote(issue.message)}`);
  }
  const made = translate(output, parsed.data, local, machine, true);
  if (made === UNKNOWN) {
    throw refused(`it names process ${(parsed.data as Result).id}, not asked for`);
  }
  return made as Result;
}

/** `value` (which fits `schema`) with this side's ids; {@link UNKNOWN} if it names another's. */
function translate(
  schema: z.ZodType,
  value: unknown,
  local: (remoteId: number) => number | undefined,
  machine: string,
  top: boolean,
): unknown {
  if (schema === processId) return local(value as number) ?? UNKNOWN;
  if (value === null || value === undefined) return value;
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) {
    return translate(schema.unwrap() as z.ZodType, value, local, machine, top);
  }
  if (schema instanceof z.ZodArray) {
    return (value as unknown[]).map((item) =>
      translate(schema.element as z.ZodType, item, local, machine, false)
    ).filter((item) => item !== UNKNOWN);
  }
  if (!(schema instanceof z.ZodObject)) return value;
  const shape = schema.shape as Record<string, z.ZodType>;
  const out: Result = { ...value as Result };
  for (const [key, field] of Object.entries(shape)) {
    if (!(key in out)) continue;
    const made = translate(field, out[key], local, machine, false);
    if (made === UNKNOWN) return UNKNOWN;
    out[key] = made;
  }
  // A process's machine is the one its reply came from, whatever the reply said.
  if (shape.id === processId && typeof out.id === "number" && (top || "machine" in shape)) {
    out.machine = machine;
  }
  return out;
}
