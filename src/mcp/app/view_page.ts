/**
 * The terminal view's page: one self-contained HTML document, as an MCP
 * App's resource must be (`text/html;profile=mcp-app`), with everything
 * inline and nothing loaded from the network: xterm.js and its style and the
 * watch page's terminal (src/watch/assets.ts), ext-apps' `App` for the
 * browser (its package's own bundle, `app-with-deps`), and the view's script
 * and style (page/). Assembled once, from text imports, so it is in the
 * module graph and in a compiled binary (docs/decisions/2026-12-07-mcp-app-page.md).
 *
 * @module
 */
import appBundle from "@modelcontextprotocol/ext-apps/app-with-deps" with { type: "text" };
import { ASSETS } from "../../watch/assets.ts";
import template from "./page/view.html" with { type: "text" };
import viewStyle from "./page/view.css" with { type: "text" };
import viewScript from "./page/view.js" with { type: "text" };

/**
 * The bundle as a script that leaves its exports on `globalThis.McpApps`:
 * an inline module cannot be imported by another, and the bundle ends with
 * one `export{local as Name,…}` statement.
 */
export function exportsAsGlobal(bundle: string): string {
  const end = /export\s*\{([^}]*)\};?\s*(\/\/# sourceMappingURL=\S*\s*)?$/;
  const match = bundle.match(end);
  if (match === null) throw new Error("ext-apps' bundle no longer ends with its exports");
  const names = match[1].split(",").map((part) => {
    const [local, name] = part.trim().split(/\s+as\s+/);
    return `${JSON.stringify(name ?? local)}:${local}`;
  });
  return `${bundle.slice(0, match.index)};globalThis.McpApps={${names.join(",")}};`;
}

/** Text put inside a `<script>` or `<style>` element: nothing in it can close the element. */
function inline(text: string): string {
  return text.replace(/<\/(script|style)/gi, "<\\/$1");
}

function asset(name: string): string {
  return ASSETS.get(name)!.body;
}

let page: string | undefined;

/** The view's page, made at its first read. */
export function viewPage(): string {
  const parts: Record<string, string> = {
    "/*xterm.css*/": asset("xterm.css"),
    "/*view.css*/": viewStyle,
    "/*xterm.js*/": asset("xterm.js"),
    "/*ext-apps*/": exportsAsGlobal(appBundle),
    // The watch page's TerminalView, then the view's own script, in one module.
    "/*view.js*/": `${asset("terminal_view.js")}\n${viewScript}`,
  };
  // A function replacer: `$` in the scripts is not a replacement pattern.
  return page ??= Object.entries(parts).reduce(
    (html, [marker, text]) => html.replace(marker, () => inline(text)),
    template,
  );
}
