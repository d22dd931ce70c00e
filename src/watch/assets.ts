/**
 * The files of the watch page, all served by Portal itself: its HTML, style
 * and scripts (page/), and xterm.js from its npm package. They are text
 * imports, so they are part of the module graph: `deno run` reads them from
 * the clone (and xterm.js from Deno's npm cache), and `deno compile` puts
 * them into the binary with the code, no `--include` needed.
 *
 * @module
 */
import xtermScript from "@xterm/xterm/lib/xterm.js" with { type: "text" };
import xtermStyle from "@xterm/xterm/css/xterm.css" with { type: "text" };
import page from "./page/index.html" with { type: "text" };
import pageStyle from "./page/watch.css" with { type: "text" };
import pageScript from "./page/watch.js" with { type: "text" };
import listScript from "./page/process_list.js" with { type: "text" };
import terminalScript from "./page/terminal_view.js" with { type: "text" };

/** A file of the page: its media type and its text. */
export interface Asset {
  type: string;
  body: string;
}

const SCRIPT = "text/javascript; charset=utf-8";
const STYLE = "text/css; charset=utf-8";

/** The page itself. */
export const PAGE: Asset = { type: "text/html; charset=utf-8", body: page };

/** What the page loads, by the name it uses under `/watch/assets/`. */
export const ASSETS: ReadonlyMap<string, Asset> = new Map([
  ["xterm.js", { type: SCRIPT, body: xtermScript }],
  ["xterm.css", { type: STYLE, body: xtermStyle }],
  ["watch.css", { type: STYLE, body: pageStyle }],
  ["watch.js", { type: SCRIPT, body: pageScript }],
  ["process_list.js", { type: SCRIPT, body: listScript }],
  ["terminal_view.js", { type: SCRIPT, body: terminalScript }],
]);
