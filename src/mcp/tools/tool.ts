/**
 * How a Portal tool is declared (schema + handler) and registered on an MCP
 * server: results go out as `structuredContent` and as the same JSON in a text
 * block; a {@link PortalError} becomes a tool error (`isError`) the agent can act on.
 *
 * @module
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { PortalError } from "../../errors.ts";
import type { ProcessManager } from "../../core/process_manager.ts";
import type { ProgramRegistry } from "../../core/program_registry.ts";

/** What a tool handler may use. */
export interface ToolContext {
  manager: ProcessManager;
  registry: ProgramRegistry;
}

/** One tool: its agent-facing text, its schemas and its handler. */
export interface PortalTool<In extends z.ZodRawShape, Out extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: In;
  output: Out;
  annotations: Omit<ToolAnnotations, "title">;
  run(
    context: ToolContext,
    args: z.infer<z.ZodObject<In>>,
  ): z.infer<z.ZodObject<Out>> | Promise<z.infer<z.ZodObject<Out>>>;
}

/** Declares a tool; the identity function, there for type inference. */
export function defineTool<In extends z.ZodRawShape, Out extends z.ZodRawShape>(
  tool: PortalTool<In, Out>,
): PortalTool<In, Out> {
  return tool;
}

/** Registers `tool` on `server`, translating results and errors. */
export function registerTool<In extends z.ZodRawShape, Out extends z.ZodRawShape>(
  server: McpServer,
  context: ToolContext,
  tool: PortalTool<In, Out>,
): void {
  const handler = async (args: z.infer<z.ZodObject<In>>): Promise<CallToolResult> => {
    try {
      const result = await tool.run(context, args) as Record<string, unknown>;
      return {
        content: [{ type: "text", text: JSON.stringify(result) }],
        structuredContent: result,
      };
    } catch (error) {
      const message = error instanceof PortalError
        ? error.message
        : `Internal error in ${tool.name}: ${(error as Error)?.message ?? error}`;
      return { content: [{ type: "text", text: message }], isError: true };
    }
  };
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.input,
      outputSchema: tool.output,
      annotations: { title: tool.title, ...tool.annotations },
    },
    // The SDK's callback type is generic over every schema flavour; ours is one of them.
    handler as unknown as Parameters<McpServer["registerTool"]>[2],
  );
}
