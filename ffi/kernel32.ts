/**
 * Windows' kernel32.dll, reached through `Deno.dlopen`: the symbols the
 * ConPTY backend and the Job Objects need, their constants (x64), and small
 * helpers for UTF-16 strings, handles and error messages.
 *
 * The library is opened on first use, so importing this module costs nothing
 * and does nothing on Linux or macOS (tests/unit/windows_pure_test.ts imports every
 * Windows module there). Struct layouts live in ./win32_structs.ts.
 *
 * Which calls may block: none of the synchronous ones below waits on
 * anything. `ReadFile` is only called for bytes `PeekNamedPipe` has just
 * reported, the input pipe is in `PIPE_NOWAIT` mode (`WriteFile` takes what
 * fits), and waits use a zero timeout. `ClosePseudoConsole` can wait for its
 * output to be drained (before Windows 11 24H2), so it runs on Deno's
 * nonblocking pool while the JS thread keeps draining.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wide } from "./kernel32.ts";
 *
 * assert.deepEqual([...wide("ok")], [0x6f, 0x6b, 0]);
 * ```
 * @module
 */

const SYMBOLS = {
  CloseHandle: { parameters: ["pointer"], result: "i32" },
  GetLastError: { parameters: [], result: "u32" },
  FormatMessageW: {
    parameters: ["u32", "pointer", "u32", "u32", "buffer", "u32", "pointer"],
    result: "u32",
  },
  CreatePipe: { parameters: ["buffer", "buffer", "pointer", "u32"], result: "i32" },
  SetNamedPipeHandleState: {
    parameters: ["pointer", "buffer", "pointer", "pointer"],
    result: "i32",
  },
  PeekNamedPipe: {
    parameters: ["pointer", "pointer", "u32", "pointer", "buffer", "pointer"],
    result: "i32",
  },
  ReadFile: { parameters: ["pointer", "buffer", "u32", "buffer", "pointer"], result: "i32" },
  WriteFile: { parameters: ["pointer", "buffer", "u32", "buffer", "pointer"], result: "i32" },
  /** Windows 10 1809 and later; COORD travels by value, packed in a u32 (see `coord`). */
  CreatePseudoConsole: {
    parameters: ["u32", "pointer", "pointer", "u32", "buffer"],
    result: "i32",
    optional: true,
  },
  ResizePseudoConsole: { parameters: ["pointer", "u32"], result: "i32", optional: true },
  /** May wait until its last output is read: on the pool, never on the JS thread. */
  ClosePseudoConsole: {
    parameters: ["pointer"],
    result: "void",
    nonblocking: true,
    optional: true,
  },
  InitializeProcThreadAttributeList: {
    parameters: ["buffer", "u32", "u32", "buffer"],
    result: "i32",
  },
  UpdateProcThreadAttribute: {
    parameters: ["buffer", "u32", "usize", "pointer", "usize", "pointer", "pointer"],
    result: "i32",
  },
  DeleteProcThreadAttributeList: { parameters: ["buffer"], result: "void" },
  SetConsoleCtrlHandler: { parameters: ["pointer", "i32"], result: "i32" },
  CreateProcessW: {
    parameters: [
      "buffer", // lpApplicationName
      "buffer", // lpCommandLine (writable)
      "pointer", // lpProcessAttributes
      "pointer", // lpThreadAttributes
      "i32", // bInheritHandles
      "u32", // dwCreationFlags
      "buffer", // lpEnvironment
      "buffer", // lpCurrentDirectory
      "buffer", // lpStartupInfo (STARTUPINFOEXW)
      "buffer", // lpProcessInformation
    ],
    result: "i32",
  },
  ResumeThread: { parameters: ["pointer"], result: "u32" },
  TerminateProcess: { parameters: ["pointer", "u32"], result: "i32" },
  WaitForSingleObject: { parameters: ["pointer", "u32"], result: "u32" },
  GetExitCodeProcess: { parameters: ["pointer", "buffer"], result: "i32" },
  OpenProcess: { parameters: ["u32", "i32", "u32"], result: "pointer" },
  GetCurrentProcess: { parameters: [], result: "pointer" },
  CreateJobObjectW: { parameters: ["pointer", "pointer"], result: "pointer" },
  SetInformationJobObject: { parameters: ["pointer", "i32", "buffer", "u32"], result: "i32" },
  AssignProcessToJobObject: { parameters: ["pointer", "pointer"], result: "i32" },
  TerminateJobObject: { parameters: ["pointer", "u32"], result: "i32" },
} as const satisfies Deno.ForeignLibraryInterface;

/** The opened symbols of kernel32.dll. */
export type Kernel32 = Deno.DynamicLibrary<typeof SYMBOLS>["symbols"];

let opened: Kernel32 | null = null;

/** Opens kernel32.dll on first call (never on import) and returns its symbols. */
export function kernel32(): Kernel32 {
  opened ??= Deno.dlopen("kernel32.dll", SYMBOLS).symbols;
  return opened;
}

/** A handle (`HANDLE`, `HPCON`): an opaque pointer. */
export type Handle = Deno.PointerValue;

/** Win32 constants used by the Windows modules (winbase.h, winnt.h, processthreadsapi.h). */
export const W = {
  /** `CreateProcessW` flags. */
  CREATE_SUSPENDED: 0x00000004,
  CREATE_UNICODE_ENVIRONMENT: 0x00000400,
  EXTENDED_STARTUPINFO_PRESENT: 0x00080000,
  /** ProcThreadAttributeValue(22, FALSE, TRUE, FALSE). */
  PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE: 0x00020016,
  /** `STARTUPINFOW.dwFlags`: the (null) std handles are used, not the parent's. */
  STARTF_USESTDHANDLES: 0x00000100,
  /** `SetNamedPipeHandleState` mode: reads and writes return at once. */
  PIPE_NOWAIT: 0x00000001,
  WAIT_OBJECT_0: 0,
  WAIT_TIMEOUT: 0x102,
  /** `ResumeThread` failure. */
  RESUME_FAILED: 0xffffffff,
  PROCESS_TERMINATE: 0x0001,
  PROCESS_SET_QUOTA: 0x0100,
  PROCESS_QUERY_LIMITED_INFORMATION: 0x1000,
  SYNCHRONIZE: 0x00100000,
  /** `JOBOBJECTINFOCLASS` of JOBOBJECT_EXTENDED_LIMIT_INFORMATION. */
  JobObjectExtendedLimitInformation: 9,
  JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: 0x00002000,
  FORMAT_MESSAGE_FROM_SYSTEM: 0x00001000,
  FORMAT_MESSAGE_IGNORE_INSERTS: 0x00000200,
  ERROR_ACCESS_DENIED: 5,
  ERROR_DIRECTORY: 267,
  ERROR_BAD_EXE_FORMAT: 193,
} as const;

/**
 * A zeroed buffer of `bytes` whose address never moves. V8 keeps small typed
 * arrays created with a length inside its heap, where the GC may move them;
 * an `ArrayBuffer` constructed on its own is always allocated outside it. Use
 * this for every buffer whose address is stored inside another struct.
 */
export function alloc(bytes: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(new ArrayBuffer(bytes));
}

/** `text` as a NUL-terminated UTF-16LE string (`LPCWSTR`), in a buffer that stays put. */
export function wide(text: string): Uint16Array<ArrayBuffer> {
  const units = new Uint16Array(new ArrayBuffer((text.length + 1) * 2));
  for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
  return units;
}

/** The handle stored at the start of `buf` (x64: 8 bytes, little-endian). */
export function handleAt(buf: Uint8Array): Handle {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  return Deno.UnsafePointer.create(view.getBigUint64(0, true));
}

/** The address of `buf`, as stored in a struct field. */
export function addressOf(buf: Uint8Array<ArrayBuffer>): bigint {
  return Deno.UnsafePointer.value(Deno.UnsafePointer.of(buf));
}

/** Closes `handle` unless it is null; for clean-up paths, where a failure changes nothing. */
export function closeHandle(handle: Handle): void {
  if (handle !== null) kernel32().CloseHandle(handle);
}

/**
 * The system's text for a Win32 error code or an HRESULT, with the number:
 * "The system cannot find the file specified. (error 2)".
 */
export function describeError(code: number): string {
  const buf = alloc(1024);
  const flags = W.FORMAT_MESSAGE_FROM_SYSTEM | W.FORMAT_MESSAGE_IGNORE_INSERTS;
  const chars = kernel32().FormatMessageW(flags, null, code >>> 0, 0, buf, 512, null);
  const text = new TextDecoder("utf-16le").decode(buf.subarray(0, chars * 2)).trim();
  const number = code < 0 || code > 0xffff ? `0x${(code >>> 0).toString(16)}` : String(code);
  return text ? `${text.replace(/\.$/, "")} (error ${number})` : `error ${number}`;
}

/**
 * An `Error` naming the call that failed and why, from `GetLastError` read
 * right after it. Between the two calls the runtime runs code of its own,
 * which may reset the value (TlsGetValue does); 0 then says nothing.
 */
export function lastError(call: string): Error {
  const code = kernel32().GetLastError();
  return new Error(`${call} failed: ${code === 0 ? "no reason given" : describeError(code)}`);
}
