/**
 * The `tools/list` reply, as small as it can be without losing what an
 * agent needs: every agent carries it in its context for the whole session
 * (the rest is said once, in the server's instructions), so it stays within
 * {@link LISTING_MAX_CHARS} in every shape a client may get. Input schemas lose
 * what JSON Schema or MCP says anyway, `$schema` (MCP's default dialect) and
 * the safe-integer bounds of an integer, and the lengths the door allows
 * (4,096 characters for a name, 1 MiB of content): they keep what is stored
 * small, no agent comes near them, and a value past one is still refused
 * with an error that names it. Types, enums, numeric ranges, defaults (as
 * `default`, never in words: schema.ts's `byDefault`), `required` and
 * `additionalProperties: false` stay. An output schema names
 * each field of the result with its JSON type, which is what a program
 * needs to read `structuredContent`; what the values mean, and the shape of
 * nested ones, is in the descriptions, the instructions and docs/tools.md.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compactInput, compactOutput } from "./listing.ts";
 *
 * const id = { type: "integer", exclusiveMinimum: 0, maximum: Number.MAX_SAFE_INTEGER };
 * const schema = {
 *   $schema: "http://json-schema.org/draft-07/schema#",
 *   type: "object",
 *   properties: { id, at: { type: "object", properties: { row: { type: "number" } } } },
 *   required: ["id"],
 *   additionalProperties: false,
 * };
 * assert.deepEqual(compactInput(schema), {
 *   type: "object",
 *   properties: {
 *     id: { type: "integer", exclusiveMinimum: 0 },
 *     at: { type: "object", properties: { row: { type: "number" } } },
 *   },
 *   required: ["id"],
 *   additionalProperties: false,
 * });
 * assert.deepEqual(compactOutput(schema), {
 *   type: "object",
 *   properties: { id: { type: "integer" }, at: { type: "object" } },
 * });
 * ```
 * @module
 */
import type { ListToolsResult, Tool } from "@modelcontextprotocol/server";
import { z } from "zod";
import { type AnyTool, strictInput } from "./tool.ts";

type Schema = Tool["inputSchema"];

/**
 * The most `JSON.stringify(tools).length` may be, for a plain client, one
 * that renders apps (what its model sees: without the app-only tools) and
 * one of 2025-11-25 with tasks (`execution`): tests/e2e/tools_test.ts and
 * app_view_test.ts hold the listing to it, bench/revisions.ts reports it.
 */
export const LISTING_MAX_CHARS = 15_000;

/**
 * The `tools/list` result of `tools`, in their order, each tool's schemas
 * compacted: made once per list (the same for every client and session).
 */
export function listing(tools: readonly AnyTool[]): ListToolsResult {
  return { tools: tools.map(listedTool) };
}

function listedTool(tool: AnyTool): Tool {
  const input = z.toJSONSchema(strictInput(tool), { target: "draft-7", io: "input" });
  const output = z.toJSONSchema(tool.output, { target: "draft-7", io: "output" });
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: compactInput(input) as Schema,
    // The title once, at the top (annotations.title is its older place).
    annotations: tool.annotations,
    outputSchema: compactOutput(output as { properties?: Record<string, unknown> }),
  };
}

const SAFE = Number.MAX_SAFE_INTEGER;

/** Lengths and counts the door allows: kept out of the listing (see the module doc). */
const SIZE_LIMITS = new Set(["maxLength", "minLength", "maxItems"]);

/** An input schema without `$schema`, the safe-integer bounds and the size limits, at every depth. */
export function compactInput(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(compactInput);
  if (schema === null || typeof schema !== "object") return schema;
  const compact: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$schema") continue;
    if (key === "maximum" && value === SAFE || key === "minimum" && value === -SAFE) continue;
    if (SIZE_LIMITS.has(key)) continue;
    // A property map's keys are names, not keywords: only its values are schemas.
    const kept = key === "properties"
      ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, compactInput(v)]))
      : compactInput(value);
    // JSON's keys are strings: a propertyNames that says only that says nothing.
    if (key === "propertyNames" && JSON.stringify(kept) === '{"type":"string"}') continue;
    compact[key] = kept;
  }
  return compact;
}

/** An output schema as its fields and their JSON types. */
export function compactOutput(schema: { properties?: Record<string, unknown> }): Schema {
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([name, field]) => [name, typeOf(field)]),
  );
  return { type: "object", properties: properties as Schema["properties"] };
}

function typeOf(field: unknown): unknown {
  const { type, anyOf } = field as { type?: unknown; anyOf?: unknown[] };
  return type !== undefined ? { type } : anyOf ? { anyOf: anyOf.map(typeOf) } : {};
}
