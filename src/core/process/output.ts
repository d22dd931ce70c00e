/**
 * A process's output as the agent reads it: record pages (the newest
 * window, or what it has not read yet), the stored output as numbered lines
 * (searched with a pattern, or around one line: output/lines/), and the
 * unread output as one text, laid out at the terminal's size, with the
 * `process_read_new` cursors that belong to the process (process_records.ts).
 *
 * @module
 */
import type { OutputSource } from "../../terminal/terminal.ts";
import type { Encoding, RecordPage, Source, Status } from "../model/schema.ts";
import type { ProcessRecords, StoredPage } from "./process_records.ts";
import { PortalError } from "../../errors.ts";
import { READ_LINES } from "../../limits.ts";
import {
  linesAround,
  type LinesFound,
  searchLines,
  type ShownLine,
} from "../output/lines/search.ts";
import { Pattern } from "../pattern/pattern.ts";

/** What process_read takes to read by lines (see {@link ProcessOutput.lines}). */
export interface LineRequest {
  pattern?: string;
  line?: number;
  context?: number;
  encoding?: Encoding;
  /** Only matches in the last this many nanoseconds (pattern). */
  windowNs?: number;
}

/** What a read by lines returns. */
export interface LinesPage {
  id: number;
  status: Status;
  lines: ShownLine[];
  /** A search: every matching line, shown or not; and every line read. */
  matches?: number;
  total_lines?: number;
  /** The search ran out of time after this line (its figures count the lines before). */
  stopped_at_line?: number;
  truncated: boolean;
  dropped_bytes: number;
}

/** What the reading needs of the rest of its process. */
export interface OutputTarget {
  id: number;
  records: ProcessRecords;
  status(): Status;
  /** The terminal's size now (PTY), undefined on pipes. */
  size(): { cols: number; rows: number } | undefined;
}

/** The reading side of one process's records. */
export class ProcessOutput {
  readonly #target: OutputTarget;

  constructor(target: OutputTarget) {
    this.#target = target;
  }

  /** Unread output as records, at most `maxChars` (see {@link ProcessRecords.readNew}). */
  readNew(options: { sources: OutputSource[]; maxChars: number }): RecordPage {
    return this.#page(this.#target.records.readNew(options));
  }

  /** Records from the last `windowNs` of the process's life; the newest win `maxChars`. */
  read(
    options: { sources: Source[]; maxChars: number; windowNs: number; encoding?: Encoding },
  ): RecordPage {
    return this.#page(this.#target.records.read(options));
  }

  /**
   * The stored output as numbered lines (line_search.ts): those `pattern`
   * matches, or those around `line`, `context` (default
   * {@link READ_LINES}.context) before and after; throws when the request
   * mixes them with what they cannot go with, or `line` is past the end.
   */
  async lines(q: LineRequest & { sources: Source[]; maxChars: number }): Promise<LinesPage> {
    const { pattern, line, context = READ_LINES.context, maxChars } = q;
    const refuse = (why: string) => new PortalError(`process_read: ${why}.`);
    if (pattern !== undefined && line !== undefined) {
      throw refuse(
        "give pattern (to search) or line (to read around it), not both: search first, then " +
          "call again with line set to a match's line",
      );
    }
    if (pattern === undefined && line === undefined) {
      throw refuse("context goes with pattern or line; for a time window give duration alone");
    }
    if (q.encoding === "base64") {
      throw refuse("pattern and line read text lines; leave encoding out (base64 is for records)");
    }
    if (line !== undefined && q.windowNs !== undefined) {
      throw refuse(
        "line numbers count every stored line, so line takes no duration: leave duration out",
      );
    }
    const kept = this.#target.records;
    const since = q.windowNs && Math.max(0, kept.elapsedNs() - q.windowNs);
    const { records, dropCR, dropped } = kept.stored(q.sources, since);
    let found: LinesFound;
    if (line === undefined) {
      found = await searchLines(records, {
        dropCR,
        pattern: Pattern.compile(pattern!, "pattern"),
        context,
        maxChars,
        sinceTimestamp: since,
      });
    } else {
      const around = await linesAround(records, { dropCR, line, context, maxChars });
      if (around.lastLine < line) {
        throw refuse(
          around.lastLine
            ? `line ${line} is past the end: the stored output has ${around.lastLine} lines`
            : `line ${line} is past the end: no output is stored`,
        );
      }
      found = around;
    }
    return {
      id: this.#target.id,
      status: this.#target.status(),
      lines: found.lines,
      ...found.matches === undefined ? {} : { matches: found.matches },
      ...found.totalLines === undefined ? {} : { total_lines: found.totalLines },
      ...found.stoppedAt === undefined ? {} : { stopped_at_line: found.stoppedAt },
      truncated: found.truncated,
      dropped_bytes: dropped,
    };
  }

  /** Unread output as one text, head and tail past `maxChars`; it counts as read. */
  readNewText(
    sources: OutputSource[],
    maxChars: number,
  ): { text: string; omitted: number; dropped: number } {
    return this.#target.records.readText(sources, maxChars, this.#target.size());
  }

  /** Marks all output so far as read (a reply showed the rendered screen instead). */
  skipNew(sources: OutputSource[]): void {
    this.#target.records.skipUnread(sources);
  }

  /** The last `chars` characters of unread output; they stay unread. */
  peekNew(sources: OutputSource[], chars: number): string {
    return this.#target.records.peekUnread(sources, chars);
  }

  #page({ records, complete, dropped }: StoredPage): RecordPage {
    return {
      id: this.#target.id,
      status: this.#target.status(),
      records: records.map(({ timestamp, source, content }) => ({ timestamp, source, content })),
      truncated: !complete,
      dropped_bytes: dropped,
    };
  }
}
