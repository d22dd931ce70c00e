/**
 * A `portal attach` spoken by hand on the host's socket, for tests and
 * benchmarks that need a terminal which stops reading (as Ctrl+S or a
 * stalled ssh does) and reads again when told: it says hello, reads the
 * welcome, and then reads nothing until {@link RawAttach.frames} is called.
 *
 * @example
 * ```ts ignore
 * using attached = await RawAttach.open(dir, "calc");
 * // ... nothing is read meanwhile: the host's writes to it block ...
 * for await (const frame of attached.frames(10_000)) if (frame.type === "end") break;
 * ```
 * @module
 */
import { type Frame, FrameReader } from "../src/host/attach/frames.ts";
import { hostAddress } from "../src/host/address.ts";
import { connReader, encodeLine, LineReader, type Welcome } from "../src/host/hello.ts";
import { ATTACH_FRAME_MAX_BYTES } from "../src/limits.ts";
import { VERSION } from "../src/version.ts";
import { serverEnv } from "./portal_client.ts";

/** An attach connection to the host of a Portal directory. */
export class RawAttach implements Disposable {
  readonly conn: Deno.UnixConn;
  readonly welcome: Welcome;
  readonly #lines: LineReader;
  /** One reader for every {@link frames} call: what it read ahead is the next call's. */
  #frames: FrameReader | undefined;

  private constructor(conn: Deno.UnixConn, lines: LineReader, welcome: Welcome) {
    this.conn = conn;
    this.#lines = lines;
    this.welcome = welcome;
  }

  /** The host socket of the Portal directory `dir` (see `Portal.start({ dir })`). */
  static async socket(dir: string): Promise<string> {
    return (await hostAddress(await serverEnv(dir))).socket;
  }

  /** Attaches to `target` (an id or a name) on the host of `dir`; reads only the welcome. */
  static async open(dir: string, target: string): Promise<RawAttach> {
    const conn = await Deno.connect({ transport: "unix", path: await RawAttach.socket(dir) });
    await conn.write(encodeLine({ portal: VERSION, role: "attach", target }));
    const lines = new LineReader(connReader(conn));
    const welcome = await lines.json<Welcome>();
    if (welcome.error) throw new Error(welcome.error);
    return new RawAttach(conn, lines, welcome);
  }

  /**
   * Reads the frames the host sends, from where the last call stopped (leave
   * its loop to stop reading); throws past `timeoutMs`.
   */
  async *frames(timeoutMs: number): AsyncGenerator<Frame> {
    const reader = this.#frames ??= new FrameReader(
      this.#lines.reader,
      ATTACH_FRAME_MAX_BYTES,
      this.#lines.rest(),
    );
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no attach frame came within ${timeoutMs} ms`)),
          Math.max(0, deadline - performance.now()),
        );
      });
      try {
        const frame = await Promise.race([reader.next(), late]);
        if (frame === undefined) return;
        yield frame;
      } finally {
        clearTimeout(timer);
      }
    }
  }

  [Symbol.dispose](): void {
    try {
      this.conn.close();
    } catch { /* closed already */ }
  }
}
