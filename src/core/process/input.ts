/**
 * A process's input: everything that goes to the program, as a person at
 * its keyboard would send it (typing.ts: line by line, or one bracketed
 * paste; keys by name; a secret), and the signals sent to it. Each write is
 * recorded as one `stdin` record with its secrets masked (secrets.ts), and
 * told to the shell tracker, so that integration marks are read against the
 * input they answer.
 *
 * @module
 */
import { PortalError } from "../../errors.ts";
import type {
  InputState,
  InterruptDelivery,
  InterruptKind,
  Terminal,
} from "../../terminal/terminal.ts";
import { keyBytes } from "../input/keys.ts";
import { asksForSecret } from "../input/password_prompt.ts";
import type { Secrets } from "../input/secrets.ts";
import { echoOf, pasteOf, typedLines } from "../input/typing.ts";
import type { TerminalModes } from "../screen/screen.ts";
import { newMarkKey } from "../shell/hooks.ts";
import { integrationSnippet } from "../shell/snippet.ts";
import type { ShellTracker } from "../shell/tracker.ts";
import type { ProcessRecords } from "./process_records.ts";

/** A piece of input, and whether it is a secret. */
export interface Typed {
  text: string;
  secret: boolean;
}

/** What one write types: text, keys by name, a secret, and whether to paste the text. */
export interface TypeRequest {
  content: string;
  keys: string[];
  secret?: string;
  paste?: boolean;
}

/** What the input needs of the rest of its process. */
export interface InputTarget {
  pty: boolean;
  terminal: Terminal;
  records: ProcessRecords;
  secrets: Secrets;
  shell: ShellTracker;
  running(): boolean;
  /** The input modes of the screen (null on pipes). */
  modes(): Promise<TerminalModes> | null;
}

/** The input side of one process. */
export class ProcessInput {
  /** `performance.now()` of the last input sent. */
  lastInputAt = -Infinity;
  readonly #target: InputTarget;
  /** What the kernel last said the program does with its input (see {@link noteActivity}). */
  #activity: InputState["activity"] | null = null;

  constructor(target: InputTarget) {
    this.#target = target;
  }

  /**
   * Whether what is typed now is a secret: echo off in canonical mode, or a
   * password prompt behind a relay (password_prompt.ts).
   */
  get hidesInput(): boolean {
    const { terminal, records } = this.#target;
    return asksForSecret(terminal.lineModes(), () => records.lastLine);
  }

  /** What a wait last learnt the program does with its input. */
  noteActivity(activity: InputState["activity"]): void {
    this.#activity = activity;
  }

  /**
   * Sends `parts` to the program's input as one write and records them as
   * one `stdin` record, the secret parts as secrets.ts says (one `[secret]`
   * per entry: keys inside an entry record nothing); returns the bytes and
   * the record.
   */
  send(parts: Typed[]): { bytes: number; record: string } {
    const { terminal, records, secrets } = this.#target;
    const bytes = new TextEncoder().encode(parts.map((p) => p.text).join(""));
    if (bytes.length === 0) return { bytes: 0, record: "" };
    // Known before the program can echo it.
    const record = parts.map((p) => secrets.typed(p.text, p.secret)).join("");
    this.#goes(() => terminal.write(bytes));
    if (record !== "") records.append("stdin", new TextEncoder().encode(record));
    return { bytes: bytes.length, record };
  }

  /**
   * Types `content` as a person types it (typing.ts): on a PTY line by line,
   * each line end pressed as Enter, awaiting `next` between two lines (false:
   * the rest goes at once); with `paste` where the program enabled
   * bracketed paste, as one paste. Then `secret`, then the keys named in
   * `keys`. On pipes content goes as it is, Enter is `\n` and Ctrl+C
   * interrupts (SIGINT), there being no line discipline. Every name is
   * checked before anything is sent. What is typed at a password prompt is a
   * secret too. Returns the bytes written and, when a paste was asked for,
   * whether it was one. A program that ends meanwhile gets no more.
   */
  async type(
    input: TypeRequest,
    next: () => Promise<boolean> = () => Promise.resolve(false),
  ): Promise<{ written: number; pasted?: boolean; echo: string[] }> {
    const { pty, records, secrets, running } = this.#target;
    const { content, keys, secret, paste = false } = input;
    records.checkWritable();
    let modes = await this.#target.modes();
    keys.forEach((name) => keyBytes(name, this.#keyModes(modes)));
    if (secret !== undefined) secrets.add(secret);
    const pasted = paste && modes?.bracketedPaste === true;
    const lines = pasted ? [pasteOf(content)] : pty ? typedLines(content) : [content];
    const echo = pty && !pasted && !this.hidesInput ? echoOf(lines, keys, secret) : [];
    const result = (written: number) => paste ? { written, pasted, echo } : { written, echo };
    let written = 0;
    let paced = true;
    for (const line of lines.slice(0, -1)) {
      written += this.send([{ text: line, secret: this.hidesInput }]).bytes;
      paced &&= await next();
      if (!running()) return result(written);
    }
    // Earlier lines may have started a program with other modes (cursor keys).
    if (lines.length > 1) modes = await this.#target.modes();
    const hidden = this.hidesInput;
    const pending: Typed[] = [{ text: lines.at(-1)!, secret: hidden }];
    if (secret !== undefined) pending.push({ text: secret, secret: true });
    for (const name of keys) {
      const bytes = keyBytes(name, this.#keyModes(modes));
      if (pty || bytes !== "\x03") {
        pending.push({ text: bytes, secret: hidden });
        continue;
      }
      written += this.send(pending.splice(0)).bytes;
      this.interrupt("ctrl_c");
    }
    return result(written + this.send(pending).bytes);
  }

  #keyModes(modes: TerminalModes | null) {
    return {
      applicationCursorKeys: modes?.applicationCursorKeys ?? false,
      enter: this.#target.pty ? "\r" : "\n",
    };
  }

  /**
   * Types Portal's shell integration snippet (shell/snippet.ts) into the
   * shell in front, whatever it is behind (ssh, a container, `sudo -i`): its
   * marks, signed with a key made for it, are followed from then on, and the
   * output up to the first prompt it draws (the snippet's echo) counts as
   * read. Returns the bytes written.
   */
  async integrate(): Promise<number> {
    if (!this.#target.pty) {
      throw new PortalError(
        "integrate needs a terminal: a shell on pipes draws no prompt. Start the shell with " +
          "pty: true.",
        "unsupported",
      );
    }
    if (this.hidesInput) {
      throw new PortalError(
        "The terminal is at a password prompt (echo off): answer it first (secret_env, " +
          "secret_prompt or secret), then send integrate at the shell's prompt.",
        "conflict",
      );
    }
    if ((await this.#target.modes())?.alternateBuffer) {
      throw new PortalError(
        "A full-screen program is in front (it shows the alternate screen): leave it, then " +
          "send integrate at the shell's prompt.",
        "conflict",
      );
    }
    const { shell, records } = this.#target;
    const key = newMarkKey();
    shell.restart(key, (seq, rest) => records.skipUnreadTo(seq, rest));
    return (await this.type({ content: integrationSnippet(key) + "\n", keys: [] })).written;
  }

  /** Ends the program's input (pipes: close stdin; PTY: Ctrl+D). */
  endInput(): void {
    this.#goes(() => this.#target.terminal.endInput());
  }

  /**
   * Sends signal number `signo`: to the process group on pipes, to the
   * terminal's foreground process group on a PTY. Returns where it went.
   */
  signal(signo: number): string {
    this.#target.terminal.signal(signo);
    return this.#target.pty ? "foreground process group of the terminal" : "process group";
  }

  /**
   * A console event: on a PTY the key is typed (^C, or ^\ for a break) and
   * the line discipline signals; on pipes the equivalent signal is sent.
   */
  interrupt(kind: InterruptKind): InterruptDelivery {
    return this.#goes(() => this.#target.terminal.interrupt(kind));
  }

  /**
   * Input goes in (`send` sends it): the shell's marks are read against it,
   * and against what was in front when the last wait looked (a relay, which
   * the kernel cannot see through, or not): asking the kernel again here
   * would cost a step. Waits count from the moment it was sent.
   */
  #goes<T>(send: () => T): T {
    this.#target.shell.input(this.#activity === "unknown");
    const result = send();
    this.lastInputAt = performance.now();
    return result;
  }
}
