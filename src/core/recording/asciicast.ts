/**
 * A PTY process's records as an asciicast v2 recording (newline-delimited
 * JSON, which asciinema 2 and 3 and asciinema-player play): a header with
 * the terminal's first size and the start time, then one event per record at
 * its real time: `"o"` for output (its bytes as UTF-8, a character split
 * between records joined, so the output events put together are the stored
 * output), `"i"` for input (as the records hold it: a secret typed at a
 * password prompt is one `[secret]` per entry), `"r"` for each resize, and at the
 * end a marker (`"m"`) saying how the process ended. Lines are produced one at
 * a time, so a long recording is never held whole. The shell integration
 * marks (OSC 133 and 633, core/shell/marks.ts) are left out of the output: they
 * carry the key of the shell's hooks, and a player has nothing to draw for
 * them. (The line `integrate: true` types holds the key as plain text, in an
 * input event and its echo, possibly cut by the terminal's wrapping: it
 * stays, as docs/security.md says.)
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { asciicast } from "./asciicast.ts";
 *
 * const bytes = (s: string) => new TextEncoder().encode(s);
 * const lines = [...asciicast({
 *   process: {
 *     id: 1, command: "python3", args: ["-q"], status: "exited", exit_code: 0, exit_signal: null,
 *     started_at: "2026-01-01T00:00:00.000Z", ended_at: "2026-01-01T00:00:02.000Z",
 *   },
 *   sizes: [{ timestamp: 0, cols: 80, rows: 24 }, { timestamp: 1e9, cols: 100, rows: 30 }],
 *   records: [
 *     { seq: 1, timestamp: 5e8, source: "stdout", bytes: bytes(">>> ") },
 *     { seq: 2, timestamp: 15e8, source: "stdin", bytes: bytes("6*7\r") },
 *     { seq: 3, timestamp: 16e8, source: "stdout", bytes: bytes("42\r\n\x1b]133;D;k=f00;0\x1b") },
 *     { seq: 4, timestamp: 17e8, source: "stdout", bytes: bytes("\\>>> ") },
 *   ],
 * })].map((line) => JSON.parse(line));
 * assert.deepEqual([lines[0].version, lines[0].width, lines[0].height], [2, 80, 24]);
 * assert.deepEqual(lines.slice(1), [
 *   [0.5, "o", ">>> "],
 *   [1, "r", "100x30"],
 *   [1.5, "i", "6*7\r"],
 *   [1.6, "o", "42\r\n"],
 *   [1.7, "o", ">>> "],
 *   [2, "m", "exited with code 0"],
 * ]);
 * ```
 * @module
 */
import type { Recording } from "../store/records.ts";
import { MAX_MARK_BYTES } from "../shell/marks.ts";

/** The media type of a `.cast` file. */
export const ASCIICAST_TYPE = "application/x-asciicast";

/** The lines of the recording, each ending in `\n`: the header, then the events. */
export function* asciicast(recording: Recording): Generator<string> {
  const { process, sizes } = recording;
  const [first = { cols: 80, rows: 24 }, ...resizes] = sizes;
  const startMs = Date.parse(process.started_at);
  yield line({
    version: 2,
    width: first.cols,
    height: first.rows,
    timestamp: Math.floor(startMs / 1000),
    command: [process.command, ...process.args].join(" "),
    title: `Portal process ${process.id}: ${process.command}`,
    env: { TERM: "xterm-256color" },
  });
  const decoders = { o: new TextDecoder(), i: new TextDecoder() };
  const marks = new MarkStripper();
  let last = 0;
  const event = (ns: number, type: string, data: string) => {
    last = Math.max(last, seconds(ns));
    return line([last, type, data]);
  };
  let next = 0;
  for (const record of recording.records) {
    while (next < resizes.length && resizes[next].timestamp <= record.timestamp) {
      const { timestamp, cols, rows } = resizes[next++];
      yield event(timestamp, "r", `${cols}x${rows}`);
    }
    const type = record.source === "stdin" ? "i" : "o";
    let text = decoders[type].decode(record.bytes, { stream: true });
    if (type === "o") text = marks.strip(text);
    if (text !== "") yield event(record.timestamp, type, text);
  }
  for (const type of ["o", "i"] as const) {
    const rest = type === "o"
      ? marks.strip(decoders.o.decode()) + marks.end()
      : decoders.i.decode();
    if (rest !== "") yield line([last, type, rest]);
  }
  if (process.status === "running") return;
  const endedMs = process.ended_at === null ? startMs : Date.parse(process.ended_at);
  const end = Math.max(last, (endedMs - startMs) / 1000);
  yield line([end, "m", endingOf(process)]);
}

/** A complete mark, BEL- or ST-terminated. */
// deno-lint-ignore no-control-regex
const MARK = /\x1b\](?:133|633);[^\x07\x1b]*(?:\x07|\x1b\\)/g;
/** The start of a sequence that may still become a mark: held for the next chunk. */
// deno-lint-ignore no-control-regex
const MARK_START = /\x1b(?:\](?:[16](?:33?)?|(?:133|633);[^\x07\x1b]*\x1b?)?)?$/;

/** Output with the shell integration marks taken out, a mark split between chunks too. */
class MarkStripper {
  #held = "";

  /** `text` without its marks; the start of one at its end is held back. */
  strip(text: string): string {
    text = (this.#held + text).replace(MARK, "");
    const start = text.search(MARK_START);
    // A sequence longer than a mark may be (marks.ts) is no mark: it goes on as it is.
    const hold = start >= 0 && text.length - start <= MAX_MARK_BYTES;
    this.#held = hold ? text.slice(start) : "";
    return hold ? text.slice(0, start) : text;
  }

  /** What is held at the end: never ended, it is no mark. */
  end(): string {
    const held = this.#held;
    this.#held = "";
    return held;
  }
}

/** How the process ended, as the final marker says it. */
function endingOf(process: Recording["process"]): string {
  const how = process.exit_signal !== null
    ? `by signal ${process.exit_signal}`
    : `with code ${process.exit_code}`;
  return `${process.status} ${how}`;
}

/** Nanoseconds as seconds, to the microsecond. */
function seconds(ns: number): number {
  return Math.round(ns / 1e3) / 1e6;
}

function line(value: unknown): string {
  return JSON.stringify(value) + "\n";
}
