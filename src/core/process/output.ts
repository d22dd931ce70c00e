/**
 * A process's output as the agent reads it: record pages (the newest
 * window, or what it has not read yet) and the unread output as one text,
 * laid out at the terminal's size, with the `process_read_new` cursors that
 * belong to the process (log.ts).
 *
 * @module
 */
import type { OutputSource } from "../../terminal/terminal.ts";
import type { Encoding, RecordPage, Source, Status } from "../model/schema.ts";
import type { LogPage, ProcessLog } from "./log.ts";

/** What the reading needs of the rest of its process. */
export interface OutputTarget {
  id: number;
  log: ProcessLog;
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

  /** Unread output as records, at most `maxChars` (see {@link ProcessLog.readNew}). */
  readNew(options: { sources: OutputSource[]; maxChars: number }): RecordPage {
    return this.#page(this.#target.log.readNew(options));
  }

  /** Records from the last `windowNs` of the process's life; the newest win `maxChars`. */
  read(
    options: { sources: Source[]; maxChars: number; windowNs: number; encoding?: Encoding },
  ): RecordPage {
    return this.#page(this.#target.log.read(options));
  }

  /** Unread output as one text, head and tail past `maxChars`; it counts as read. */
  readNewText(
    sources: OutputSource[],
    maxChars: number,
  ): { text: string; omitted: number; dropped: number } {
    return this.#target.log.readText(sources, maxChars, this.#target.size());
  }

  /** Marks all output so far as read (a reply showed the rendered screen instead). */
  skipNew(sources: OutputSource[]): void {
    this.#target.log.skipUnread(sources);
  }

  /** The last `chars` characters of unread output; they stay unread. */
  peekNew(sources: OutputSource[], chars: number): string {
    return this.#target.log.peekUnread(sources, chars);
  }

  #page({ records, complete, dropped }: LogPage): RecordPage {
    return {
      id: this.#target.id,
      status: this.#target.status(),
      records: records.map(({ timestamp, source, content }) => ({ timestamp, source, content })),
      truncated: !complete,
      dropped_bytes: dropped,
    };
  }
}
