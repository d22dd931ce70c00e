/**
 * The `_meta` every MCP 2026-07-28 request carries (its revision, the
 * client's capabilities, optionally its identity and log level), checked
 * before the SDK reads the request, so that what is wrong is said by name:
 * the SDK's own refusal of a missing field reads "Invalid input: expected
 * object, received undefined", and on a connection already in 2026-07-28 it
 * serves a request that claims another revision. A request that claims no
 * revision is not one of 2026-07-28 and is not looked at here.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { envelopeError } from "./envelope.ts";
 *
 * const meta = (m: Record<string, unknown>) => ({ _meta: m });
 * const version = "io.modelcontextprotocol/protocolVersion";
 * const capabilities = "io.modelcontextprotocol/clientCapabilities";
 * assert.equal(envelopeError(meta({ [version]: "2026-07-28", [capabilities]: {} })), undefined);
 * assert.equal(envelopeError({}), undefined); // 2025-11-25: no envelope
 * assert.match(envelopeError(meta({ [version]: "2026-07-28" }))!.message, /clientCapabilities/);
 * assert.equal(envelopeError(meta({ [version]: "2099-01-01", [capabilities]: {} }))!.code, -32022);
 * ```
 * @module
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import { LOG_LEVELS, type LoggingLevel } from "./logging.ts";

/** The revisions served per request, with their `_meta`. */
export const MODERN_VERSIONS: readonly string[] = ["2026-07-28"];
/** The revisions served after an `initialize`, newest first: the SDK's. */
export const LEGACY_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;

/** A JSON-RPC error for the request. */
export interface EnvelopeError {
  code: number;
  message: string;
  data?: unknown;
}

/** Why the `params` of a request claiming a revision cannot be served; undefined if they can. */
export function envelopeError(params: unknown): EnvelopeError | undefined {
  const meta = (params as { _meta?: unknown } | undefined)?._meta;
  if (meta === null || typeof meta !== "object") return undefined;
  const envelope = meta as Record<string, unknown>;
  const requested = envelope[PROTOCOL_VERSION_META_KEY];
  if (requested === undefined) return undefined;
  if (typeof requested !== "string" || !MODERN_VERSIONS.includes(requested)) {
    const named = typeof requested === "string" ? requested : JSON.stringify(requested);
    return {
      code: ProtocolErrorCode.UnsupportedProtocolVersion,
      message: `Unsupported protocol version ${named?.slice(0, 40)}: Portal speaks ` +
        `${MODERN_VERSIONS.join(", ")} per request (with _meta), and ` +
        `${LEGACY_VERSIONS.join(", ")} after an initialize.`,
      data: { supported: [...MODERN_VERSIONS, ...LEGACY_VERSIONS], requested: named },
    };
  }
  const capabilities = envelope[CLIENT_CAPABILITIES_META_KEY];
  if (capabilities === null || typeof capabilities !== "object" || Array.isArray(capabilities)) {
    return invalid(
      `_meta["${CLIENT_CAPABILITIES_META_KEY}"] is ${
        capabilities === undefined ? "missing" : "not an object"
      }: every ${requested} request carries the client's capabilities there ({} if none).`,
    );
  }
  const level = envelope[LOG_LEVEL_META_KEY];
  if (level !== undefined && !LOG_LEVELS.includes(level as LoggingLevel)) {
    return invalid(
      `_meta["${LOG_LEVEL_META_KEY}"] must be one of ${LOG_LEVELS.join(", ")}, or absent ` +
        "(no log messages for this request).",
    );
  }
  return undefined;
}

/** Whether `server` speaks a revision of requests with `_meta` (2026-07-28), not of sessions. */
export function speaksModern(server: Server): boolean {
  return MODERN_VERSIONS.includes(server.getNegotiatedProtocolVersion() ?? "");
}

/** A 2026-07-28 request's `_meta` envelope (the SDK's type of it is opaque); empty for others. */
export function envelope(ctx: ServerContext): Record<string, unknown> {
  return (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
}

/**
 * The capabilities of the client of call `ctx` to `server`: 2026-07-28
 * carries them in each request's `_meta`, 2025-11-25 had them at `initialize`.
 */
export function clientCapabilities(
  server: Server,
  ctx: ServerContext,
): ClientCapabilities | undefined {
  const declared = envelope(ctx)[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  return declared ?? server.getClientCapabilities();
}

function invalid(message: string): EnvelopeError {
  return { code: ProtocolErrorCode.InvalidParams, message };
}
