/**
 * An MCP client transport over a child's stdin and stdout (one JSON-RPC
 * message per line), the child being the command that reaches another
 * machine's Portal (transports.ts). Its stderr is kept, the last 4 KiB: ssh
 * says there why a link failed or ended. Closing it closes the child's
 * stdin (the remote door's client has left: its unkept programs end), then
 * ends the child if it lingers.
 *
 * What the other side sends is bounded: a line (one message) longer than
 * {@link LINE_MAX_BYTES} ends the link at once (the child is killed), and
 * {@link ChildTransport.failure} says so, as soon as the bound is passed
 * (bounded_lines.ts), so a flood costs this process no more than the bound.
 *
 * @module
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { withTimeout } from "../async.ts";
import { BoundedLines } from "../bounded_lines.ts";

/** The end of stderr kept for the error messages. */
const STDERR_KEPT = 4096;

/**
 * The longest line read from the other side, in bytes: a Portal's reply stays far under it (a
 * read holds at most 1,000,000 characters, 6 bytes each when JSON escapes them all); past it
 * the link is ended rather than held in memory.
 */
export const LINE_MAX_BYTES = 16 * 1024 * 1024;

/** How long a closed link's command may take to exit before it is killed. */
const EXIT_GRACE_MS = 2000;

export class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  #stderr = "";
  #exit: Deno.CommandStatus | undefined;
  #failure: string | undefined;
  readonly exited: Promise<Deno.CommandStatus>;

  constructor(argv: string[], env: Record<string, string>) {
    this.#child = new Deno.Command(argv[0], {
      args: argv.slice(1),
      env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.exited = this.#child.status.then((status) => this.#exit = status);
  }

  /** How the child ended, once it has. */
  get exit(): Deno.CommandStatus | undefined {
    return this.#exit;
  }

  /** Why this side ended the link, if it did (what the other side sent broke a bound). */
  get failure(): string | undefined {
    return this.#failure;
  }

  /** The last of what the child wrote to stderr, trimmed. */
  get stderr(): string {
    return this.#stderr.trim();
  }

  start(): Promise<void> {
    void this.#readStderr();
    void this.#readStdout();
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  }

  async close(): Promise<void> {
    await this.#writer.close().catch(() => {/* the child is gone */});
    const ended = await withTimeout(this.exited, EXIT_GRACE_MS, null);
    if (ended === null) {
      try {
        this.#child.kill("SIGTERM");
      } catch { /* ended meanwhile */ }
      await this.exited;
    }
  }

  async #readStdout(): Promise<void> {
    const lines = new BoundedLines(LINE_MAX_BYTES, {
      line: (line) => {
        if (this.#failure !== undefined || line.trim() === "") return;
        try {
          this.onmessage?.(JSON.parse(line));
        } catch (error) {
          this.onerror?.(error as Error);
        }
      },
      skipping: () => {
        this.#failure = `it sent a line over ${LINE_MAX_BYTES / 1024 / 1024} MiB, ` +
          "longer than any Portal reply";
      },
      tooLong: () => {},
    });
    try {
      for await (const chunk of this.#child.stdout) {
        lines.push(chunk);
        if (this.#failure === undefined) continue;
        try {
          this.#child.kill("SIGKILL");
        } catch { /* ended meanwhile */ }
        this.onerror?.(new Error(this.#failure));
        // Leaving the loop cancels the stream: nothing more is read or held.
        break;
      }
    } catch (error) {
      this.onerror?.(error as Error);
    }
    await this.exited;
    this.onclose?.();
  }

  async #readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.#child.stderr) {
      this.#stderr = (this.#stderr + decoder.decode(chunk, { stream: true })).slice(-STDERR_KEPT);
    }
  }
}
