/**
 * `secret_prompt`: the person at the client is asked for a secret through
 * MCP elicitation (a form), and the answer goes to the program, never to the
 * model. Only clients that declared form elicitation can be asked; for the
 * others the call control has no `askSecret`, and the core says what to use
 * instead.
 *
 * MCP 2025-11-25 asks servers to collect credentials through URL-mode
 * elicitation (a page of the server's own, so the value never passes through
 * the client); few clients support it yet. Through a form the value passes
 * through the client application, but not through the model.
 *
 * @module
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ErrorCode, type McpError, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { PortalError } from "../errors.ts";
import { SECRET_PROMPT_MS } from "../limits.ts";

/**
 * Asks the person at `server`'s client during the call `request` (over HTTP
 * the question travels on that call's stream), or undefined when that client
 * cannot be asked.
 */
export function secretPrompt(
  server: Server,
  request: { signal: AbortSignal; requestId: RequestId },
): ((label: string) => Promise<string>) | undefined {
  const { signal, requestId } = request;
  if (!server.getClientCapabilities()?.elicitation?.form) return undefined;
  return async (label) => {
    let result;
    try {
      result = await server.elicitInput({
        mode: "form",
        message: `A program run by your AI agent through Portal asks for: ${label}\n` +
          "What you enter is typed into that program. The agent does not see it, and Portal " +
          "does not store it.",
        requestedSchema: {
          type: "object",
          properties: { secret: { type: "string", title: label } },
          required: ["secret"],
        },
      }, { signal, timeout: SECRET_PROMPT_MS, relatedRequestId: requestId });
    } catch (error) {
      if (signal.aborted) throw error;
      // The client's message is not passed on: it might quote what the person typed.
      const why = (error as McpError | undefined)?.code === ErrorCode.RequestTimeout
        ? `no answer within ${SECRET_PROMPT_MS / 1000} s`
        : "the client reported an error";
      throw new PortalError(`The person was asked (secret_prompt), but ${why}; nothing was typed.`);
    }
    const secret = result.content?.secret;
    if (result.action !== "accept" || typeof secret !== "string") {
      throw new PortalError(
        `The person did not give the secret (${result.action}); nothing was typed. Ask them ` +
          "how to go on.",
      );
    }
    return secret;
  };
}
