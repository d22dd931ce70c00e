/**
 * Shell integration marks read from a terminal's raw output as it arrives:
 * OSC 133 (FinalTerm: `A` prompt start, `B` prompt end, `C` output start,
 * `D;status` command end), VS Code's OSC 633 (the same letters, plus
 * `E;line` the command line, `F`/`G` around a continuation prompt,
 * `P;Cwd=path`) and OSC 7 (`file://host/path`, the directory). A sequence
 * split between chunks is carried over, however small the chunks (a relay
 * such as ssh cuts them anywhere). The bytes that are not OSC sequences are
 * handed on as text, in order with the marks, for whoever reads the command
 * line from its echo.
 *
 * A mark may be signed: `k=<key>` right after its letter (`133;D;k=…;1`,
 * `633;P;k=…;Cwd=/srv`), the key of the hooks that sent it (hooks.ts). It
 * comes before anything a mark carries that a program could shape (a
 * directory's name, a command line), so that no such text can end one
 * sequence and lend its key to one it starts. The sink gets the key (null
 * when unsigned) and decides what an unsigned mark is worth (tracker.ts:
 * nothing).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Mark, MarkParser } from "./marks.ts";
 *
 * const marks: Mark[] = [];
 * const keys: (string | null)[] = [];
 * const text: string[] = [];
 * const parser = new MarkParser({
 *   mark: (mark, _end, key) => marks.push(mark) && keys.push(key),
 *   text: (bytes) => text.push(new TextDecoder().decode(bytes)),
 * });
 * const bytes = (s: string) => new TextEncoder().encode(s);
 * parser.feed(bytes("$ false\r\n\x1b]133;C\x07\x1b]133;D;"));
 * parser.feed(bytes("1\x1b\\\x1b]7;file://box/tmp/a%20b\x07\x1b]633;P;k=f00;Cwd=/srv\x07"));
 * assert.deepEqual(marks, [
 *   { kind: "output_start" },
 *   { kind: "command_end", exitCode: 1 },
 *   { kind: "cwd", path: "/tmp/a b" },
 *   { kind: "cwd", path: "/srv" },
 * ]);
 * assert.deepEqual(keys, [null, null, null, "f00"]);
 * assert.equal(text.join(""), "$ false\r\n");
 * ```
 * @module
 */
import { concatBytes } from "../../bytes.ts";

/** One mark, as a shell (or any program) sent it. */
export type Mark =
  | { kind: "prompt_start" }
  | { kind: "prompt_end" }
  | { kind: "output_start"; line?: string; time?: number }
  | { kind: "command_end"; exitCode: number | null; time?: number; durationMs?: number }
  | { kind: "command_line"; line: string }
  | { kind: "continuation_start" }
  | { kind: "continuation_end" }
  | { kind: "cwd"; path: string };

/** Where the parser's findings go. */
export interface MarkSink {
  /**
   * A mark; `end` is the offset in the chunk just past its sequence; `key`
   * the one it is signed with, null when unsigned.
   */
  mark(mark: Mark, end: number, key: string | null): void;
  /** Output that is no OSC sequence (called only while {@link wantsText} says so). */
  text?(bytes: Uint8Array): void;
  /** Whether {@link text} is wanted now (default: always, when it is given). */
  wantsText?(): boolean;
}

const ESC = 0x1b;
const BEL = 0x07;
const OSC = 0x5d; // "]"
const ST_END = 0x5c; // "\"
/** An OSC longer than this is no mark: it is skipped without being kept. */
export const MAX_MARK_BYTES = 4096;

const LETTERS: Record<string, Mark["kind"]> = {
  A: "prompt_start",
  B: "prompt_end",
  F: "continuation_start",
  G: "continuation_end",
};
const UTF8 = new TextDecoder();
const ONE_ESC = Uint8Array.of(ESC);

/** Follows one output stream's marks, chunk after chunk. */
export class MarkParser {
  readonly #sink: MarkSink;
  /** Where the previous chunk left off: outside any sequence, after an ESC, inside an OSC. */
  #state: "ground" | "esc" | "osc" | "osc_esc" = "ground";
  #payload: Uint8Array[] = [];
  #payloadBytes = 0;

  constructor(sink: MarkSink) {
    this.#sink = sink;
  }

  /** Reads one chunk of output. */
  feed(bytes: Uint8Array): void {
    let i = 0;
    const n = bytes.length;
    while (i < n) {
      switch (this.#state) {
        case "ground": {
          const at = bytes.indexOf(ESC, i);
          this.#text(bytes.subarray(i, at < 0 ? n : at));
          if (at < 0) return;
          i = at + 1;
          this.#state = "esc";
          break;
        }
        case "esc":
          if (bytes[i] === OSC) {
            this.#state = "osc";
            this.#payload = [];
            this.#payloadBytes = 0;
            i++;
          } else {
            // Another escape sequence: text for the echo reader, which interprets some.
            this.#text(ONE_ESC);
            this.#state = "ground";
          }
          break;
        case "osc": {
          const bel = bytes.indexOf(BEL, i);
          const esc = bytes.indexOf(ESC, i);
          const end = bel < 0 ? esc : esc < 0 ? bel : Math.min(bel, esc);
          this.#keep(bytes.subarray(i, end < 0 ? n : end));
          if (end < 0) return;
          i = end + 1;
          if (end === bel) this.#dispatch(i);
          else this.#state = "osc_esc";
          break;
        }
        case "osc_esc":
          if (bytes[i] === ST_END) {
            i++;
            this.#dispatch(i);
          } else {
            // ESC without "\" ends the OSC unfinished (as xterm does) and starts a sequence.
            this.#state = "esc";
          }
          break;
      }
    }
  }

  #text(bytes: Uint8Array): void {
    const sink = this.#sink;
    if (bytes.length > 0 && sink.text && (sink.wantsText?.() ?? true)) sink.text(bytes);
  }

  #keep(bytes: Uint8Array): void {
    if (this.#payloadBytes > MAX_MARK_BYTES || bytes.length === 0) return;
    this.#payload.push(bytes.slice());
    this.#payloadBytes += bytes.length;
  }

  #dispatch(end: number): void {
    this.#state = "ground";
    if (this.#payloadBytes > MAX_MARK_BYTES) return;
    const payload = concatBytes(this.#payload);
    this.#payload = [];
    const found = signedMarkOf(UTF8.decode(payload));
    if (found !== null) this.#sink.mark(found.mark, end, found.key);
  }
}

/**
 * The mark an OSC payload (what lies between `ESC ]` and its end) stands
 * for, if any, and the key it is signed with (`k=` right after the letter).
 */
function signedMarkOf(payload: string): { mark: Mark; key: string | null } | null {
  const fields = payload.split(";");
  const signed = (fields[0] === "133" || fields[0] === "633") && fields[2]?.startsWith("k=");
  const key = signed ? fields[2].slice(2) : null;
  const mark = markOf(signed ? [...fields.slice(0, 2), ...fields.slice(3)] : fields, payload);
  return mark === null ? null : { mark, key };
}

/** The mark of an OSC payload split at its `;` (without its key). */
function markOf(fields: string[], payload: string): Mark | null {
  const [code, letter] = fields;
  if (code === "7") return cwdOfUrl(payload.slice(2));
  if (code !== "133" && code !== "633") return null;
  const params = new Map(
    fields.slice(2).map((f) => [f.split("=", 1)[0], f.slice(f.indexOf("=") + 1)]),
  );
  const time = seconds(params.get("t"));
  if (letter === "D") {
    const status = fields[2];
    const mark: Mark = {
      kind: "command_end",
      exitCode: status && /^\d+$/.test(status) ? Number(status) : null,
    };
    if (time !== undefined) mark.time = time;
    const duration = Number(params.get("d") ?? NaN);
    if (Number.isFinite(duration) && duration >= 0) mark.durationMs = duration;
    return mark;
  }
  if (letter === "C") {
    const mark: Mark = { kind: "output_start" };
    // kitty's and fish 4's form carries the command line: C;cmdline_url=<percent-encoded>.
    const url = params.get("cmdline_url");
    const line = url === undefined ? undefined : percentDecoded(url);
    if (line !== undefined) mark.line = line;
    if (time !== undefined) mark.time = time;
    return mark;
  }
  const kind = LETTERS[letter];
  if (kind !== undefined) return { kind } as Mark;
  if (code !== "633") return null;
  if (letter === "E" && fields.length >= 3) {
    return { kind: "command_line", line: unescapeValue(fields[2]) };
  }
  if (letter === "P" && fields[2]?.startsWith("Cwd=")) {
    return { kind: "cwd", path: unescapeValue(fields.slice(2).join(";").slice(4)) };
  }
  return null;
}

/**
 * A shell's clock in a mark's `t=` (Portal's hooks: seconds since the epoch,
 * with a fraction, whose point a locale may write as a comma).
 */
function seconds(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+([.,]\d+)?$/.test(value)) return undefined;
  return Number(value.replace(",", "."));
}

/** OSC 7's `file://host/path` (or a bare absolute path) as a path. */
function cwdOfUrl(url: string): Mark | null {
  const slash = url.startsWith("file://") ? url.indexOf("/", 7) : 0;
  const path = slash < 0 ? "" : url.slice(slash);
  if (!path.startsWith("/")) return null;
  return { kind: "cwd", path: percentDecoded(path) ?? path };
}

function percentDecoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** OSC 633's escaping of values: `\\` for a backslash, `\xHH` for a byte. */
function unescapeValue(value: string): string {
  if (!value.includes("\\")) return value;
  const bytes: number[] = [];
  const raw = new TextEncoder().encode(value);
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === 0x5c && raw[i + 1] === 0x5c) {
      bytes.push(0x5c);
      i++;
    } else if (raw[i] === 0x5c && raw[i + 1] === 0x78 && i + 3 < raw.length) {
      const hex = String.fromCharCode(raw[i + 2], raw[i + 3]);
      if (/^[0-9a-fA-F]{2}$/.test(hex)) {
        bytes.push(parseInt(hex, 16));
        i += 3;
      } else bytes.push(raw[i]);
    } else bytes.push(raw[i]);
  }
  return UTF8.decode(Uint8Array.from(bytes));
}
