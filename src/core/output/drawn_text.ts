/**
 * A step's new terminal output as a person sees it once it is drawn: where
 * it redraws (a progress bar's carriage returns, a line editor's cursor
 * moves, erase-in-line), each line as it stands at the end, not every
 * fragment it went through; the records keep every byte. The output is
 * laid out (line_layout.ts) after the line it continues, the end of what
 * was shown before (a prompt), so it wraps where the terminal wrapped it;
 * that line's part from before is not repeated unless the output drew over
 * it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { drawnText, redraws } from "./drawn_text.ts";
 *
 * const raw = "run\r\n\r 10%\r 60%\r100%\r\n>>> ";
 * assert.ok(redraws(raw));
 * assert.equal(drawnText(">>> ", raw, 80), "run\n100%\n>>> ");
 * ```
 * @module
 */
import { LineLayout } from "./line_layout.ts";
import { EMPTY_ROW } from "./screen_rows.ts";

// Matching control characters is the point.
// deno-lint-ignore no-control-regex
const REDRAW = /\r(?!\n)|\x08|\x1b\[[\d;]*[A-HJKPXdfsu@]|\x1b[78]/;

/** Whether raw terminal output `raw` draws over what it drew (else its text is the stream). */
export function redraws(raw: string): boolean {
  return REDRAW.test(raw);
}

/** Entering or leaving the alternate screen (DECSET 1049, 1047, 47). */
// deno-lint-ignore no-control-regex
const ALTERNATE = /\x1b\[\?(?:1049|1047|47)([hl])/g;

/**
 * The lines `raw` leaves on a terminal `cols` wide, drawn after `seed` (the
 * line shown so far): every row but the last without trailing spaces, the
 * last as drawn (a prompt's space stays). What it drew on the alternate
 * screen (a full-screen program's last moments, vim's `:wq`) is that
 * screen's rows as they stood when it left, those with text on them.
 */
export function drawnText(seed: string, raw: string, cols: number): string {
  let text = "";
  let primary = seed;
  let from = 0;
  // Output that leaves the alternate screen before entering it began there.
  const first = [...raw.matchAll(ALTERNATE)][0];
  let onAlternate = first?.[1] === "l";
  for (const switched of [...raw.matchAll(ALTERNATE), null]) {
    const part = raw.slice(from, switched?.index ?? raw.length);
    from = switched ? switched.index + switched[0].length : raw.length;
    if (onAlternate) {
      text += screenRows(part, cols);
      // Back on the primary screen, the cursor is where it was before: unknown here.
      primary = "";
    } else {
      const drawn = layOut(primary, part, cols);
      text += drawn;
      primary = drawn.slice(drawn.lastIndexOf("\n") + 1);
    }
    onAlternate = switched?.[1] === "h";
  }
  return text;
}

function layOut(seed: string, raw: string, cols: number): string {
  const layout = new LineLayout(cols);
  layout.mark = true;
  // The seed's last row: where the cursor is.
  layout.write(seed.slice(seed.length - seed.length % cols).replaceAll("\x1b", ""));
  layout.mark = false;
  layout.write(raw);
  return layout.text((row, r) => {
    // The seed's row: from the first cell the output drew on.
    const from = r === layout.origin ? row.marked.indexOf(false) : 0;
    return row.chars.slice(from < 0 ? row.chars.length : from).join("");
  }, true);
}

/** The rows with text on them (not blank, not vim's `~`) that `raw` drew on a full screen. */
function screenRows(raw: string, cols: number): string {
  const layout = new LineLayout(cols);
  layout.write(raw);
  return layout.rows.map((row) => row.chars.join("").trimEnd())
    .filter((row) => !EMPTY_ROW.test(row))
    .map((row) => row + "\n").join("");
}
