/**
 * The MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865) as Portal
 * serves it: to a client that declares it, `tools/list` shows
 * `process_watch` with the terminal view's resource (`_meta.ui.resourceUri`)
 * and the view's own tools (view_tools.ts, for the view only); each
 * `process_watch` opens a view (views.ts) whose token rides in the result's
 * `_meta`, which the client hands to the view and not to the model; and
 * `resources/read` of the view's URI returns its page (view_page.ts), which
 * may connect nowhere. A client that does not declare it sees the tools and
 * the link it always did.
 *
 * @module
 */
import { getUiCapability, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import {
  type CallToolResult,
  type ListResourcesResult,
  type ListToolsResult,
  type ReadResourceResult,
  ResourceNotFoundError,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { clientCapabilities } from "../envelope.ts";
import type { AnyTool, ToolContext } from "../tools/tool.ts";
import { listing } from "../tools/listing.ts";
import { VIEW_TOOLS } from "./view_tools.ts";
import { openView } from "./views.ts";

/** The terminal view's resource. */
export const VIEW_URI = "ui://portal/terminal";
/** Where a `process_watch` result carries its view, in `_meta`. */
export const VIEW_META_KEY = "io.portal/view";

/** Whether the client of `ctx` renders MCP Apps: it declares the extension, and HTML views. */
export function declaresUi(server: Server, ctx: ServerContext): boolean {
  const ui = getUiCapability(clientCapabilities(server, ctx));
  return ui !== undefined && (ui.mimeTypes?.includes(RESOURCE_MIME_TYPE) ?? true);
}

/**
 * What process_watch does for a client that renders apps (its other clients
 * get the link only): short, so the tools a model sees stay within
 * tools/list's 15,000 characters (listing.ts) with the view's `_meta`.
 */
const WATCH_IN_CHAT = "Shows the terminal here, live; your user may take over. id: which one.";

/** Portal's tools and the view's, for a client that renders apps: made once. */
let appListed: ListToolsResult | undefined;
export function appListing(tools: readonly AnyTool[]): ListToolsResult {
  return appListed ??= {
    tools: [
      ...listing(tools).tools.map((tool) =>
        tool.name === "process_watch"
          ? { ...tool, description: WATCH_IN_CHAT, _meta: { ui: { resourceUri: VIEW_URI } } }
          : tool
      ),
      ...listing(VIEW_TOOLS).tools.map((tool) => ({
        ...tool,
        _meta: { ui: { visibility: ["app"] } },
      })),
    ],
  };
}

const VIEW_TOOL_NAMES = new Set(VIEW_TOOLS.map((tool) => tool.name));

/**
 * A result for a client that renders apps: `process_watch`'s with its view
 * ({@link withView}); a view tool's with a one-line text block, since only
 * the view reads it, and it reads `structuredContent` (a poll's output or a
 * recording would otherwise go twice).
 */
export function withViewTouches(
  name: string,
  result: CallToolResult,
  context: ToolContext,
  args: unknown,
): CallToolResult {
  if (name === "process_watch") return withView(result, context, args as { id?: number });
  if (!VIEW_TOOL_NAMES.has(name) || result.isError) return result;
  return { ...result, content: [{ type: "text", text: `${name}: done (for the view)` }] };
}

/**
 * A `process_watch` result with a view of its process (the one named, else
 * the newest this client sees) in its `_meta`: the token, the process's id,
 * command and whether it runs on a PTY. None for a process on another
 * machine (its page is that machine's), or when there is none.
 */
export function withView(
  result: CallToolResult,
  context: ToolContext,
  args: { id?: number },
): CallToolResult {
  if (result.isError) return result;
  const { manager } = context;
  let process;
  try {
    process = args.id !== undefined
      ? manager.watched(args.id)
      : manager.watchedAll().toSorted((a, b) => a.id - b.id).at(-1);
  } catch {
    return result; // Not here: a remote process.
  }
  if (process === undefined) return result;
  const { id, command, pty } = process.describe();
  const token = openView(manager, process);
  return { ...result, _meta: { ...result._meta, [VIEW_META_KEY]: { token, id, command, pty } } };
}

/** The view's resource as `resources/list` shows it (to a client that renders apps). */
export function viewResources(ui: boolean): ListResourcesResult {
  if (!ui) return { resources: [] };
  return {
    resources: [{
      uri: VIEW_URI,
      name: "terminal",
      title: "Portal terminal",
      description: "A process's live terminal, with Take over (process_watch shows it).",
      mimeType: RESOURCE_MIME_TYPE,
    }],
  };
}

/** `resources/read`: the view's page, which may connect nowhere and load nothing. */
export async function readViewResource(uri: string): Promise<ReadResourceResult> {
  if (uri !== VIEW_URI) {
    const shown = uri.slice(0, 100);
    throw new ResourceNotFoundError(shown, `No resource ${shown}: Portal has one, ${VIEW_URI}.`);
  }
  // The page's megabyte of text imports loads at the first read, not at every server's start.
  const { viewPage } = await import("./view_page.ts");
  return {
    contents: [{
      uri: VIEW_URI,
      mimeType: RESOURCE_MIME_TYPE,
      text: viewPage(),
      _meta: {
        ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true },
      },
    }],
  };
}
