/**
 * A process as a person's watch page sees it: its live screen and events,
 * its recording, and its keyboard, which the person may take over from the
 * agent (viewers.ts). What the person types goes to the program as the
 * agent's input does (recorded as `stdin`, a secret at a password prompt
 * redacted the same way), and is kept for the agent's next reply.
 *
 * @module
 */
import { PortalError } from "../../errors.ts";
import { TERMINAL_SIZE } from "../../limits.ts";
import type { ProcessDetails } from "../model/schema.ts";
import type { Recording } from "../store/records.ts";
import { asciicast } from "../recording/asciicast.ts";
import type { Screen } from "../screen/screen.ts";
import type { LiveScreen, LiveSource } from "./live_feed.ts";
import type { OutputTail } from "./output_tail.ts";
import type { Controller, LiveEvent, Viewers } from "./viewers.ts";

/** The tail of a pipe process's output a watcher's page starts with. */
const PIPE_TAIL_CHARS = 16_000;
/** The rows of a pipe process's view on the page (watch/page/terminal_view.js). */
const PIPE_ROWS = 30;

/** The fields of a process's details the page's list shows as they are. */
const LISTED = [
  "id",
  "name",
  "command",
  "args",
  "pty",
  "status",
  "state",
  "controlled_by",
  "started_at",
  "ended_at",
  "exit_code",
  "exit_signal",
  "cols",
  "rows",
] as const;

/** A process as the page's list shows it. */
export type ListedProcess = Pick<ProcessDetails, typeof LISTED[number]> & {
  /** The person's rules it runs under, in a few words ("workspace-write, network none"). */
  policy: string | null;
  /** The machine it runs on, when not this one: its screen is on that machine's page. */
  machine?: string;
};

/** What a watched process needs of the rest of it. */
export interface WatchTarget {
  id: number;
  pty: boolean;
  viewers: Viewers;
  /** What goes to it (process/input.ts). */
  input: {
    readonly hidesInput: boolean;
    interrupt(kind: "ctrl_c"): unknown;
    send(parts: { text: string; secret: boolean }[]): { record: string };
  };
  /** Its records (process/process_records.ts). */
  records: {
    readonly seq: number;
    checkWritable(): void;
    tailText(maxChars: number): string;
    recording(): Omit<Recording, "process">;
  };
  screen: Screen | undefined;
  /** Why it cannot be typed into, if it has ended (else null). */
  ended(): string | null;
  describe(): ProcessDetails;
}

/** One process, for its watch pages. */
export class WatchedProcess implements LiveSource {
  readonly id: number;
  readonly #target: WatchTarget;

  constructor(target: WatchTarget) {
    this.id = target.id;
    this.#target = target;
  }

  describe(): ProcessDetails {
    return this.#target.describe();
  }

  /** The process as the page's list shows it. */
  listed(): ListedProcess {
    const d = this.describe();
    const row = Object.fromEntries(LISTED.map((key) => [key, d[key]]));
    const policy = d.policy ? `${d.policy.mode}, network ${d.policy.network}` : null;
    return { ...row as Pick<ProcessDetails, typeof LISTED[number]>, policy };
  }

  /** Whether the program runs on a terminal, and so has a screen. */
  get hasScreen(): boolean {
    return this.#target.screen !== undefined;
  }

  /** Who types into the program now. */
  get controlledBy(): Controller {
    return this.#target.viewers.controlledBy;
  }

  /** The page that holds the keyboard, or null (the agent's). */
  get holder(): object | null {
    return this.#target.viewers.holder;
  }

  /** A person's page takes the keyboard (from the agent, or from another page). */
  takeOver(page: object): void {
    const ended = this.#target.ended();
    if (ended !== null) {
      throw new PortalError(
        `Process ${this.id} has ended (${ended}): nothing to type into.`,
        "ended",
        { id: this.id },
      );
    }
    this.#target.viewers.take(page);
  }

  /** The page gives the keyboard back to the agent (closing it does too); false if it had not. */
  giveBack(page: object): boolean {
    return this.#target.viewers.giveBack(page);
  }

  /**
   * What a person typed on the page that holds the keyboard, as a terminal
   * sends it, to the program. On pipes Enter is `\n` and Ctrl+C interrupts,
   * as for the agent.
   */
  typeAsPerson(page: object, data: string): void {
    const { viewers, input, records, pty } = this.#target;
    if (viewers.holder !== page) {
      throw new PortalError(
        "Press Take over first: until then keys typed here go nowhere.",
        "conflict",
        { id: this.id },
      );
    }
    if (this.#target.ended() !== null) return;
    records.checkWritable();
    const hidden = input.hidesInput;
    const parts = pty ? [data] : data.replaceAll("\r", "\n").split("\x03");
    parts.forEach((text, i) => {
      if (i > 0) input.interrupt("ctrl_c");
      viewers.typed(input.send([{ text, secret: hidden }]).record);
    });
  }

  /**
   * Notes `record`, the stdin record of what a person typed elsewhere (a
   * terminal through `portal attach`), already sent: the agent's next reply
   * tells it, as it tells what was typed on the page.
   */
  personTyped(record: string): void {
    this.#target.viewers.typed(record);
  }

  /** What a person typed since the agent's last call on this process (see viewers.ts). */
  takePersonInput(): { person_input?: string } {
    return this.#target.viewers.takeTyped();
  }

  observe(listener: (event: LiveEvent) => void): () => void {
    return this.#target.viewers.observe(listener);
  }

  /** The whole terminal now: the emulator's (PTY), or the output's tail (pipes). */
  async liveScreen(): Promise<LiveScreen> {
    const { screen, records } = this.#target;
    if (screen) return { ...await screen.serialize(), pty: true };
    const data = records.tailText(PIPE_TAIL_CHARS);
    return { seq: records.seq, cols: 0, rows: 0, data, pty: false };
  }

  /** A flood's picture: the last screenful of `tail` on an empty terminal of its size and buffer. */
  floodScreen(tail: OutputTail): LiveScreen {
    const { screen, records } = this.#target;
    const decode = (lines: number) => new TextDecoder().decode(tail.latest(lines));
    if (!screen) return { seq: records.seq, cols: 0, rows: 0, data: decode(PIPE_ROWS), pty: false };
    const { cols, rows } = this.describe();
    const size = {
      cols: cols ?? TERMINAL_SIZE.defaultCols,
      rows: rows ?? TERMINAL_SIZE.defaultRows,
    };
    // A full-screen program draws on the alternate buffer, and so does its picture.
    const alternate = screen.trackedModes?.alternateBuffer ? "\x1b[?1049h" : "";
    return { seq: records.seq, ...size, data: alternate + decode(size.rows), pty: true };
  }

  /** A PTY process's asciicast: the name of its file, and its lines, made as they are read. */
  cast(): { name: string; lines: Generator<string> } {
    if (!this.hasScreen) {
      throw new PortalError(
        `Process ${this.id} runs on pipes, which have no terminal to replay.`,
        "unsupported",
        { id: this.id },
      );
    }
    const recording: Recording = { process: this.describe(), ...this.#target.records.recording() };
    const name = `portal-${this.id}-${recording.process.command.replace(/[^\w.-]/g, "_")}.cast`;
    return { name, lines: asciicast(recording) };
  }
}
