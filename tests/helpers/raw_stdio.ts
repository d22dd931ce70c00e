/**
 * A stdio transport for the SDK `Client` that keeps every line the server
 * wrote to stdout, byte for byte, so a test can check that stdout carried
 * JSON-RPC and nothing else. (The SDK's own transport parses lines as they
 * come and would hide what it could not parse behind an error callback.)
 *
 * @module
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Talks JSON-RPC over a child's stdin and stdout; {@link lines} is all stdout held. */
export class RawStdioTransport implements Transport {
  readonly lines: string[] = [];
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #child: Deno.ChildProcess;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  #reading: Promise<void> | undefined;

  constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#stdin = child.stdin.getWriter();
  }

  start(): Promise<void> {
    this.#reading = this.#read();
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.#stdin.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  }

  /** Closes the server's stdin (which stops it) and reads its stdout to the end. */
  async close(): Promise<void> {
    await this.#stdin.close().catch(() => {});
    await this.#reading;
    this.onclose?.();
  }

  async #read(): Promise<void> {
    let pending = "";
    for await (const text of this.#child.stdout.pipeThrough(new TextDecoderStream())) {
      pending += text;
      let end;
      while ((end = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 1);
        this.lines.push(line);
        try {
          this.onmessage?.(JSON.parse(line));
        } catch (error) {
          this.onerror?.(error as Error);
        }
      }
    }
    if (pending) this.lines.push(pending);
  }
}
