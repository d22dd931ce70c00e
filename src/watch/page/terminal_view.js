// The terminal of the watched process: xterm.js at the process's size, its text in the DOM
// (the DOM renderer), fed the current screen and then the program's bytes; and the replay of
// a recording. It never answers the program: Portal's own emulator does that, so every
// question a program asks its terminal is swallowed here, and only keys a person types leave.
// xterm.js comes as a classic script before this module (index.html): its global Terminal.
const { Terminal } = globalThis;

/** Pipes have no terminal size: their output is shown this wide. */
const PIPE_SIZE = { cols: 100, rows: 30 };
/** Unparsed bytes this page may hold before it asks for a fresh screen instead. */
const BEHIND_BYTES = 4 * 1024 * 1024;

export class TerminalView {
  constructor(element, { onKeys, onBehind }) {
    this.term = new Terminal({
      cols: 80,
      rows: 24,
      scrollback: 1000,
      fontFamily: '"DejaVu Sans Mono", Menlo, Consolas, monospace',
      fontSize: 14,
      cursorBlink: false,
      allowProposedApi: false,
      theme: { background: "#000000" },
    });
    this.term.open(element);
    swallowQueries(this.term);
    this.term.onData((data) => onKeys(data));
    this.onBehind = onBehind;
    this.unparsed = 0;
    this.replaying = null;
  }

  /** Starts over with `screen` (escape sequences that draw it) at its size. */
  showScreen({ cols, rows, pty, data }) {
    this.stopReplay();
    this.term.reset();
    this.term.options.convertEol = !pty;
    const size = pty ? { cols, rows } : PIPE_SIZE;
    this.term.resize(size.cols, size.rows);
    this.unparsed = 0;
    this.write(data);
  }

  /** The program's bytes, as they came. */
  write(data) {
    const size = typeof data === "string" ? data.length : data.byteLength;
    this.unparsed += size;
    this.term.write(data instanceof ArrayBuffer ? new Uint8Array(data) : data, () => {
      this.unparsed -= size;
    });
    if (this.unparsed > BEHIND_BYTES) {
      this.unparsed = 0;
      this.onBehind();
    }
  }

  resize(cols, rows) {
    this.term.resize(cols, rows);
  }

  focus() {
    this.term.focus();
  }

  /** Plays a recording (asciicast v2 text) at `speed` (a number, or "max"); resolves at its end. */
  async replay(cast, speed) {
    this.stopReplay();
    const [header, ...events] = cast.split("\n").filter((line) => line !== "").map((line) =>
      JSON.parse(line)
    );
    const run = { stopped: false };
    this.replaying = run;
    this.term.reset();
    this.term.options.convertEol = false;
    this.term.resize(header.width, header.height);
    let clock = 0;
    for (const [time, type, data] of events) {
      if (run.stopped) return false;
      if (speed !== "max" && time > clock) {
        await new Promise((resolve) => setTimeout(resolve, ((time - clock) * 1000) / speed));
        clock = time;
      }
      if (run.stopped) return false;
      if (type === "o") this.term.write(data);
      else if (type === "r") {
        const [cols, rows] = data.split("x").map(Number);
        this.term.resize(cols, rows);
      }
    }
    await new Promise((resolve) => this.term.write("", resolve));
    this.replaying = null;
    return true;
  }

  stopReplay() {
    if (this.replaying) this.replaying.stopped = true;
    this.replaying = null;
  }
}

/**
 * Makes xterm.js keep quiet: the program's questions (device attributes, cursor position,
 * modes, colours, settings, window reports) are answered by Portal's emulator, and an answer
 * from here would reach the program as if a person had typed it.
 */
function swallowQueries(term) {
  const quiet = () => true;
  for (const final of ["c", "n", "t"]) {
    for (const prefix of [undefined, "?", ">", "="]) {
      term.parser.registerCsiHandler(prefix ? { prefix, final } : { final }, quiet);
    }
  }
  for (const prefix of [undefined, "?"]) {
    const id = { intermediates: "$", final: "p" };
    term.parser.registerCsiHandler(prefix ? { ...id, prefix } : id, quiet);
  }
  for (const intermediates of ["$", "+"]) {
    term.parser.registerDcsHandler({ intermediates, final: "q" }, quiet);
  }
  for (const osc of [4, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 52]) {
    term.parser.registerOscHandler(osc, (data) => data.split(";").includes("?"));
  }
}
