/**
 * The Win32 structs the ConPTY backend passes to kernel32, laid out for x64
 * (pointers and `SIZE_T` 8 bytes, natural alignment), as byte buffers. Pure:
 * their offsets are unit-tested on every OS (tests/unit/windows_pure_test.ts).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { coord } from "./win32_structs.ts";
 *
 * assert.equal(coord(80, 24), (24 << 16) | 80);
 * ```
 * @module
 */
import { alloc } from "./kernel32.ts";

/** Byte offsets of `STARTUPINFOEXW`: `STARTUPINFOW` (104 bytes) and then the attribute list. */
export const STARTUPINFOEXW = {
  size: 112,
  cb: 0,
  dwFlags: 60,
  hStdInput: 80,
  hStdOutput: 88,
  hStdError: 96,
  lpAttributeList: 104,
} as const;

/** Byte offsets of `PROCESS_INFORMATION`. */
export const PROCESS_INFORMATION = {
  size: 24,
  hProcess: 0,
  hThread: 8,
  dwProcessId: 16,
  dwThreadId: 20,
} as const;

/**
 * Byte offsets of `JOBOBJECT_EXTENDED_LIMIT_INFORMATION`: the basic limits
 * (two LARGE_INTEGERs, then `LimitFlags`), IO_COUNTERS, four `SIZE_T`s.
 */
export const JOBOBJECT_EXTENDED_LIMIT_INFORMATION = {
  size: 144,
  LimitFlags: 16,
} as const;

/**
 * `COORD { SHORT X; SHORT Y; }` passed by value: a 4-byte struct travels in a
 * register like a u32, X (columns) in the low half, Y (rows) in the high one.
 */
export function coord(cols: number, rows: number): number {
  return ((rows & 0xffff) << 16 | (cols & 0xffff)) >>> 0;
}

/**
 * A `STARTUPINFOEXW` whose `cb` says it is the extended struct, with the
 * attribute list at `attributeList` (an address) and `STARTF_USESTDHANDLES`
 * set with all three std handles null: without it, a child of a server whose
 * own stdio is redirected (ours is the MCP pipe) writes to the server's
 * stdout instead of the pseudo console (node-pty's conpty.cc does the same).
 */
export function startupInfoEx(attributeList: bigint, stdHandlesFlag: number): Uint8Array {
  const buf = alloc(STARTUPINFOEXW.size);
  const view = new DataView(buf.buffer);
  view.setUint32(STARTUPINFOEXW.cb, STARTUPINFOEXW.size, true);
  view.setUint32(STARTUPINFOEXW.dwFlags, stdHandlesFlag, true);
  view.setBigUint64(STARTUPINFOEXW.lpAttributeList, attributeList, true);
  return buf;
}

/** What `CreateProcessW` wrote into a `PROCESS_INFORMATION`. */
export interface ProcessInformation {
  process: bigint;
  thread: bigint;
  pid: number;
  tid: number;
}

/** Reads a `PROCESS_INFORMATION` buffer. */
export function readProcessInformation(buf: Uint8Array): ProcessInformation {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  return {
    process: view.getBigUint64(PROCESS_INFORMATION.hProcess, true),
    thread: view.getBigUint64(PROCESS_INFORMATION.hThread, true),
    pid: view.getUint32(PROCESS_INFORMATION.dwProcessId, true),
    tid: view.getUint32(PROCESS_INFORMATION.dwThreadId, true),
  };
}

/** A `JOBOBJECT_EXTENDED_LIMIT_INFORMATION` that sets only `limitFlags`. */
export function extendedLimits(limitFlags: number): Uint8Array {
  const buf = alloc(JOBOBJECT_EXTENDED_LIMIT_INFORMATION.size);
  new DataView(buf.buffer).setUint32(
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION.LimitFlags,
    limitFlags,
    true,
  );
  return buf;
}
