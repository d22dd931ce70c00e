/**
 * A shell as its integration marks tell it (marks.ts): where each command
 * starts and ends, its line, its exit code, the directory, and whether the
 * prompt is drawn. It keeps the commands that finished since a step last
 * took them, and answers a wait: a prompt drawn after the last input means
 * the shell waits for the next command; a command that the input started
 * through a relay (ssh) and that has not ended means the wait goes on,
 * however long its output pauses.
 *
 * Only marks signed with the key of the hooks Portal put into the shell
 * (at launch, injection.ts, or typed, snippet.ts) count: any program the
 * shell runs can print a mark (`cat` of a file), and would otherwise end a
 * command with the exit code it likes, replace its line, move its
 * directory or end a wait mid-command. A program that is no shell Portal
 * integrated (a shell that sends plain OSC 133 by itself, as fish 4 does)
 * has no key, so its marks say nothing: readiness comes from the kernel and
 * silence there, as for any program, until `integrate: true` gives it
 * signed hooks.
 *
 * A command's `line` is the one the shell sent (OSC 633 E, or `C` with
 * `cmdline_url`), else the line as its editor drew it between the prompt's
 * end and the output's start (echo_line.ts). Its `duration_ms` is the
 * shell's own (its clock in the start and end marks, or fish's
 * `$CMD_DURATION`), else from the output start mark to the end mark as they
 * arrive.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ShellTracker } from "./tracker.ts";
 *
 * const shell = new ShellTracker({ cols: () => 80, key: "5e1f" });
 * const out = (s: string) => shell.feed(new TextEncoder().encode(s), 1);
 * out("\x1b]133;A;k=5e1f\x07$ \x1b]133;B;k=5e1f\x07");
 * shell.input(false);
 * out("cd /tmp\r\n\x1b]133;C;k=5e1f\x07");
 * assert.equal(shell.readiness(), null);
 * // Unsigned: printed by a program, not by the hooks. Nothing ends.
 * out("\x1b]133;D;0\x07\x1b]133;A\x07");
 * assert.equal(shell.readiness(), null);
 * out("\x1b]633;P;k=5e1f;Cwd=/tmp\x07\x1b]133;D;k=5e1f;0\x07\x1b]133;A;k=5e1f\x07$ ");
 * out("\x1b]133;B;k=5e1f\x07");
 * assert.equal(shell.readiness(), "prompt");
 * const [command] = shell.takeFinished();
 * assert.deepEqual({ ...command, duration_ms: 0 }, {
 *   line: "cd /tmp",
 *   exit_code: 0,
 *   cwd: "/tmp",
 *   duration_ms: 0,
 * });
 * assert.equal(shell.integration, "active");
 * ```
 * @module
 */
import type { ShellCommand } from "../model/schema.ts";
import { EchoLine } from "./echo_line.ts";
import { type Mark, MarkParser } from "./marks.ts";

/** What the marks say about a wait: ready at a prompt, busy in a command, or nothing. */
export type MarkReadiness = "prompt" | "command" | null;

/** Keys of integrated shells kept; older ones go first. */
const MAX_KEYS = 8;

/** Finished commands kept for the next step; older ones go first. */
const MAX_UNREPORTED = 100;

/** A line that replaces the shell (`exec bash`; not `exec >log`, which only redirects). */
const EXEC = /^\s*exec\s+(-\S+\s+)*[^\s<>&|;\d-]/;

interface OpenCommand {
  tick: number;
  startedAt: number;
  /** The shell's clock at the start, when the mark says (seconds). */
  shellStart?: number;
  line: string;
  /** The line came from the shell, not from the echo. */
  sent: boolean;
}

/** The marks of one terminal's output. */
export class ShellTracker {
  readonly #cols: () => number;
  /**
   * The keys a mark may be signed with to count, the newest last: the hooks
   * put in at launch, then each shell integrated since (a shell left through
   * `exit` hands the terminal back to the one before, whose marks count again).
   */
  readonly #keys: string[];
  readonly #parser: MarkParser;
  /** The output record being read, and its bytes (for where a prompt starts). */
  #seq = 0;
  #chunk: Uint8Array = new Uint8Array();
  /** Events are ordered by this counter: a mark or an input each takes the next tick. */
  #tick = 0;
  #active = false;
  #ended = false;
  #cwd: string | null = null;
  #echo: EchoLine | null = null;
  /** A line the shell sent before the output start mark. */
  #sentLine: string | null = null;
  #open: OpenCommand | null = null;
  /** The last prompt drawn: its end mark, or its start for a shell that sends no end mark. */
  #promptTick = 0;
  #sawPromptEnd = false;
  #inputTick = 0;
  #inputViaRelay = false;
  /** Finished and not yet taken; the newest stays as `last` after a take. */
  #unreported: ShellCommand[] = [];
  #last: ShellCommand | null = null;
  /** Whether the last finished command may still learn its directory (before the next prompt). */
  #lastAwaitsCwd = false;
  #onPromptStart: ((seq: number, rest: Uint8Array) => void) | null = null;

  /**
   * `key`: the one the shell's hooks sign with (null: no hooks, and no mark
   * is read until {@link restart} gives one).
   */
  constructor(options: { cols: () => number; key: string | null }) {
    this.#cols = options.cols;
    this.#keys = options.key === null ? [] : [options.key];
    this.#parser = new MarkParser({
      mark: (mark, end, key) => {
        if (key !== null && this.#keys.includes(key)) {
          this.#mark(mark, end, key === this.#keys.at(-1));
        }
      },
      text: (bytes) => this.#echo?.write(bytes),
      wantsText: () => this.#echo !== null,
    });
  }

  /** Reads output record `seq`, exactly as it was stored. */
  feed(bytes: Uint8Array, seq: number): void {
    if (this.#keys.length === 0 || this.#ended) return;
    this.#seq = seq;
    this.#chunk = bytes;
    this.#parser.feed(bytes);
  }

  /** The agent's input went in; `viaRelay`: a relay (ssh) was in front to take it. */
  input(viaRelay: boolean): void {
    this.#inputTick = ++this.#tick;
    this.#inputViaRelay = viaRelay;
  }

  /**
   * A new shell is being integrated (Portal typed its snippet into the shell
   * in front): marks signed with `key` are followed from now on, and what
   * the marks said before (a command of the shell behind a relay) no longer
   * stands. The keys of the shells integrated before still count (the last
   * {@link MAX_KEYS}).
   * `onPromptStart` hears where that shell's first prompt starts: in record
   * `seq`, just before `rest`, the bytes of the record after the mark.
   */
  restart(key: string, onPromptStart: (seq: number, rest: Uint8Array) => void): void {
    this.#keys.push(key);
    if (this.#keys.length > MAX_KEYS) this.#keys.shift();
    this.#active = false;
    this.#open = null;
    this.#sentLine = null;
    this.#echo = null;
    this.#onPromptStart = onPromptStart;
  }

  /** The program ended: no shell is there any more. */
  end(): void {
    this.#ended = true;
    this.#active = false;
    this.#echo = null;
  }

  /** `"active"` while a shell in front sends marks. */
  get integration(): "active" | "off" {
    return this.#active ? "active" : "off";
  }

  /** Whether a marked shell is in front. */
  get active(): boolean {
    return this.#active;
  }

  /** The shell's directory, as it last reported it. */
  get cwd(): string | null {
    return this.#cwd;
  }

  /** The last command that finished. */
  get last(): ShellCommand | null {
    return this.#last;
  }

  /** The commands that finished since the last call, oldest first. */
  takeFinished(): ShellCommand[] {
    const finished = this.#unreported;
    this.#unreported = [];
    return finished;
  }

  /** What the marks say about the last input (see {@link MarkReadiness}). */
  readiness(): MarkReadiness {
    if (!this.#active) return null;
    if (this.#open !== null) {
      return this.#open.tick > this.#inputTick && this.#inputViaRelay ? "command" : null;
    }
    return this.#promptTick > this.#inputTick ? "prompt" : null;
  }

  /** Reads a signed mark; `newest`: of the shell integrated last. */
  #mark(mark: Mark, end: number, newest: boolean): void {
    const tick = ++this.#tick;
    switch (mark.kind) {
      case "prompt_start": {
        this.#active = true;
        // A prompt without an end mark for the command before it: it ended, status unknown.
        if (this.#open !== null) this.#finish(null);
        this.#lastAwaitsCwd = false;
        this.#sentLine = null;
        this.#echo = new EchoLine(this.#cols());
        if (!this.#sawPromptEnd) this.#promptTick = tick;
        // The first prompt of the shell just integrated: what came before it was the snippet.
        const heard = newest ? this.#onPromptStart : null;
        if (newest) this.#onPromptStart = null;
        heard?.(this.#seq, this.#chunk.subarray(end));
        break;
      }
      case "prompt_end":
        this.#active = true;
        this.#sawPromptEnd = true;
        this.#promptTick = tick;
        this.#echo ??= new EchoLine(this.#cols());
        this.#echo.prompt(false);
        break;
      case "continuation_start":
        this.#echo?.prompt(true);
        break;
      case "continuation_end":
        this.#echo?.prompt(false);
        break;
      case "command_line":
        if (this.#open === null) this.#sentLine = mark.line;
        else if (!this.#open.sent) this.#open = { ...this.#open, line: mark.line, sent: true };
        break;
      case "output_start":
        this.#start(tick, mark.line, mark.time);
        break;
      case "command_end":
        // An end without a start is an empty line, or Ctrl+C at the prompt.
        if (this.#open !== null) this.#finish(mark.exitCode, durationOf(this.#open, mark));
        break;
      case "cwd":
        this.#cwd = mark.path;
        if (this.#lastAwaitsCwd && this.#last !== null) this.#last.cwd = mark.path;
        break;
    }
  }

  #start(tick: number, markLine: string | undefined, shellStart: number | undefined): void {
    // A second start before an end: the shell runs the next command of one pasted text,
    // which stays one command (its line is the whole text, its status the last one's).
    if (this.#open !== null) return;
    const sent = markLine ?? this.#sentLine;
    const line = sent ?? this.#echo?.text() ?? "";
    this.#echo = null;
    this.#sentLine = null;
    // `exec`: the shell is replaced by a program that may send no marks: nothing stands.
    if (EXEC.test(line)) this.#active = false;
    else this.#open = { tick, startedAt: performance.now(), shellStart, line, sent: sent !== null };
  }

  #finish(exitCode: number | null, durationMs?: number): void {
    const open = this.#open!;
    this.#open = null;
    const command: ShellCommand = {
      line: open.line,
      exit_code: exitCode,
      cwd: this.#cwd,
      duration_ms: Math.round(durationMs ?? performance.now() - open.startedAt),
    };
    this.#last = command;
    this.#lastAwaitsCwd = true;
    this.#unreported.push(command);
    if (this.#unreported.length > MAX_UNREPORTED) this.#unreported.shift();
  }
}

/**
 * A command's duration as the shell measured it: given in the end mark
 * (fish), or between the shell's clocks in the start and end marks (bash,
 * zsh); else undefined, and it is measured as the marks arrive.
 */
function durationOf(
  open: OpenCommand,
  end: { time?: number; durationMs?: number },
): number | undefined {
  if (end.durationMs !== undefined) return end.durationMs;
  if (end.time === undefined || open.shellStart === undefined) return undefined;
  return Math.max(0, (end.time - open.shellStart) * 1000);
}
