/**
 * The Worker that runs every PTY's terminal emulator (`@xterm/headless`), so
 * that parsing a flood never holds the server's own thread: it takes
 * {@link EmulatorRequest}s in order and answers with
 * {@link EmulatorEvent}s. Started by emulator.ts, one for all screens.
 *
 * @module
 */
import xterm from "@xterm/headless";
import { SerializeAddon } from "@xterm/addon-serialize";
import type { BufferName, ScreenRequest, ScreenSnapshot } from "../model/schema.ts";
import { asBulkThread } from "../../../ffi/bulk_thread.ts";

// Parsing a flood is bulk work: under load, the thread that answers calls goes first.
asBulkThread();

/** Input modes a program sets on its terminal (see `Screen.modes`). */
export interface TerminalModes {
  /** DECCKM (`CSI ? 1 h`): arrows, Home and End send `ESC O x`. */
  applicationCursorKeys: boolean;
  /** `CSI ? 2004 h`: pasted text is wanted between `ESC [ 200 ~` and `ESC [ 201 ~`. */
  bracketedPaste: boolean;
  /** The alternate buffer is active (vim, less, htop). */
  alternateBuffer: boolean;
}

/** What the main thread asks of the emulator of screen `id`. */
export type EmulatorRequest =
  | { op: "open"; id: number; cols: number; rows: number; scrollback: number }
  /** Answered by "parsed" once xterm has parsed `bytes`. */
  | { op: "write"; id: number; bytes: Uint8Array }
  | { op: "resize"; id: number; cols: number; rows: number }
  /** Answered by "answer" (`ask` numbers the question), as "modes" and "serialize" are. */
  | {
    op: "snapshot";
    id: number;
    ask: number;
    options: Pick<ScreenRequest, "buffer" | "scrollback">;
  }
  | { op: "modes"; id: number; ask: number }
  /** Answered once every write before it is parsed. */
  | { op: "serialize"; id: number; ask: number }
  | { op: "close"; id: number };

/** What the emulator tells the main thread; "answer" answers question `ask`. */
export type EmulatorEvent =
  | { op: "parsed"; id: number }
  | { op: "reply"; id: number; data: string }
  | {
    op: "answer";
    id: number;
    ask: number;
    value: ScreenSnapshot | TerminalModes | SerializedScreen;
  };

/** The whole terminal as escape sequences that redraw it (colours, modes, both buffers). */
export interface SerializedScreen {
  cols: number;
  rows: number;
  data: string;
}

interface Emulator {
  term: xterm.Terminal;
  title: string | null;
  serializer: SerializeAddon;
}

/** The Worker's global scope (typed here: the project's types are a window's). */
const scope = self as unknown as {
  postMessage(event: EmulatorEvent): void;
  onmessage: ((event: MessageEvent<EmulatorRequest>) => void) | null;
};
const emulators = new Map<number, Emulator>();
const post = (event: EmulatorEvent) => scope.postMessage(event);

scope.onmessage = ({ data }) => {
  if (data.op === "open") {
    const term = new xterm.Terminal({
      cols: data.cols,
      rows: data.rows,
      scrollback: data.scrollback,
      allowProposedApi: true,
      // Binary output would make the parser report each bad sequence on stderr.
      logLevel: "off",
    });
    const serializer = new SerializeAddon();
    // The addon is written for @xterm/xterm; it uses only what the headless terminal has.
    term.loadAddon(serializer as unknown as xterm.ITerminalAddon);
    const emulator: Emulator = { term, title: null, serializer };
    term.onTitleChange((title) => emulator.title = title || null);
    // A real terminal answers the program's queries (cursor position, device attributes).
    term.onData((reply) => post({ op: "reply", id: data.id, data: reply }));
    emulators.set(data.id, emulator);
    return;
  }
  const emulator = emulators.get(data.id);
  if (emulator === undefined) return;
  const { term } = emulator;
  switch (data.op) {
    case "write":
      term.write(data.bytes, () => post({ op: "parsed", id: data.id }));
      break;
    case "resize":
      term.resize(data.cols, data.rows);
      break;
    case "snapshot":
      post({ op: "answer", id: data.id, ask: data.ask, value: snapshot(emulator, data.options) });
      break;
    case "modes": {
      const modes = {
        applicationCursorKeys: term.modes.applicationCursorKeysMode,
        bracketedPaste: term.modes.bracketedPasteMode,
        alternateBuffer: term.buffer.active.type === "alternate",
      };
      post({ op: "answer", id: data.id, ask: data.ask, value: modes });
      break;
    }
    case "serialize": {
      // An empty write is parsed after every write before it.
      const { id, ask } = data;
      term.write(new Uint8Array(0), () => {
        const value = { cols: term.cols, rows: term.rows, data: emulator.serializer.serialize() };
        post({ op: "answer", id, ask, value });
      });
      break;
    }
    case "close":
      emulators.delete(data.id);
      term.dispose();
  }
};

function snapshot(
  { term, title }: Emulator,
  options: Pick<ScreenRequest, "buffer" | "scrollback">,
): ScreenSnapshot {
  const active: BufferName = term.buffer.active.type === "alternate" ? "alternate" : "primary";
  const name = options.buffer ?? active;
  const buffer = name === "alternate" ? term.buffer.alternate : term.buffer.normal;
  const top = buffer.baseY;
  const lines = readLines(buffer, top, top + term.rows);
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const snapshot: ScreenSnapshot = {
    buffer: name,
    active_buffer: active,
    cols: term.cols,
    rows: term.rows,
    cursor: { row: buffer.cursorY, col: buffer.cursorX },
    title,
    lines,
  };
  if (options.scrollback) {
    snapshot.scrollback = readLines(buffer, Math.max(0, top - options.scrollback), top);
  }
  return snapshot;
}

function readLines(buffer: xterm.IBuffer, from: number, to: number): string[] {
  const lines: string[] = [];
  for (let y = from; y < to; y++) {
    lines.push(buffer.getLine(y)?.translateToString(true).trimEnd() ?? "");
  }
  return lines;
}
