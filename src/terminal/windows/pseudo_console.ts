/**
 * The Win32 side of one ConPTY program: the pseudo console, our ends of its
 * two anonymous pipes, the process handle and the program's job. Every
 * method returns at once (see ffi/kernel32.ts for why none can block); the
 * state machine in conpty_terminal.ts decides when to call them.
 *
 * @module
 */
import {
  alloc,
  closeHandle,
  describeError,
  type Handle,
  kernel32,
  W,
} from "../../../ffi/kernel32.ts";
import { coord } from "../../../ffi/win32_structs.ts";
import type { ExitInfo } from "../terminal.ts";
import type { ConsoleProgram } from "./conpty_terminal.ts";
import type { Job } from "./job.ts";

/** Shared by every console: calls are synchronous, and each chunk is copied out. */
const READ_BUF = alloc(64 * 1024);
const COUNT = new Uint32Array(new ArrayBuffer(4));
const AVAILABLE = new Uint32Array(new ArrayBuffer(4));
const NOTHING = new Uint8Array(0);
/**
 * Input goes to the pipe in pieces no larger than its buffer (4 KiB by
 * default), each of which a nonblocking byte pipe takes whole or in part.
 */
const WRITE_PIECE = 4096;

/** The handles of a started program; the console owns and closes them all. */
export interface ConsoleHandles {
  pid: number;
  process: Handle;
  /** The pseudo console (HPCON). */
  hpc: Handle;
  /** Our end of the pipe the console reads input from (`PIPE_NOWAIT`). */
  input: Handle;
  /** Our end of the pipe the console writes its output to. */
  output: Handle;
  job: Job;
}

/** See the module doc. */
export class PseudoConsole implements ConsoleProgram {
  readonly pid: number;
  readonly #h: ConsoleHandles;
  #closing: Promise<void> | undefined;

  constructor(handles: ConsoleHandles) {
    this.pid = handles.pid;
    this.#h = handles;
  }

  read(max: number): Uint8Array | null {
    const k = kernel32();
    const output = this.#h.output;
    // Failure means the console closed its end and everything it wrote has been read.
    if (output === null || k.PeekNamedPipe(output, null, 0, null, AVAILABLE, null) === 0) {
      return null;
    }
    const wanted = Math.min(AVAILABLE[0], max, READ_BUF.length);
    if (wanted === 0) return NOTHING;
    // Never waits: the pipe holds at least `wanted` bytes, and nobody else reads it.
    if (k.ReadFile(output, READ_BUF, wanted, COUNT, null) === 0) return null;
    return READ_BUF.slice(0, COUNT[0]);
  }

  write(chunk: Uint8Array): number {
    const input = this.#h.input;
    if (input === null) return -1;
    let taken = 0;
    while (taken < chunk.length) {
      const piece = chunk.subarray(taken, taken + WRITE_PIECE);
      if (kernel32().WriteFile(input, piece, piece.length, COUNT, null) === 0) {
        return taken > 0 ? taken : -1;
      }
      taken += COUNT[0];
      if (COUNT[0] < piece.length) break;
    }
    return taken;
  }

  resize(cols: number, rows: number): void {
    const hr = kernel32().ResizePseudoConsole!(this.#h.hpc, coord(cols, rows));
    if (hr !== 0) throw new Error(`ResizePseudoConsole failed: ${describeError(hr)}`);
  }

  exited(): ExitInfo | null {
    const k = kernel32();
    const state = k.WaitForSingleObject(this.#h.process, 0);
    if (state === W.WAIT_TIMEOUT) return null;
    // Signed, as Deno.Command reports codes on Windows: 0xC000013A (Ctrl+C) is -1073741510.
    const code = new Int32Array(1);
    const known = state === W.WAIT_OBJECT_0 && k.GetExitCodeProcess(this.#h.process, code) !== 0;
    return { code: known ? code[0] : null, signal: null };
  }

  terminate(): void {
    this.#h.job.terminate();
  }

  closeConsole(): Promise<void> {
    this.#closing ??= kernel32().ClosePseudoConsole!(this.#h.hpc);
    return this.#closing;
  }

  dispose(): void {
    for (const key of ["input", "output", "process"] as const) {
      closeHandle(this.#h[key]);
      this.#h[key] = null;
    }
    this.#h.job.close();
  }
}
