/**
 * The version this Portal reports (`initialize`, `--version`, the host's
 * socket name): deno.json's. A module of its own, so the door and the
 * command line read it without loading the MCP server.
 *
 * @module
 */
import denoJson from "../deno.json" with { type: "json" };

/** `deno.json`'s `"version"`. */
export const VERSION: string = denoJson.version;
