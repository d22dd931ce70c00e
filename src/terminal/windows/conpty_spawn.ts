/**
 * Starting a program on a new Windows pseudo console, in the order of
 * node-pty's conpty.cc (and Microsoft's "Creating a Pseudoconsole session"):
 *
 * 1. two anonymous pipes (`CreatePipe`): the console reads input from one
 *    and writes its output to the other; our input end is set to
 *    `PIPE_NOWAIT` so a write never blocks;
 * 2. `CreatePseudoConsole` with the size and the console's two ends;
 * 3. an attribute list with `PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE`
 *    (`InitializeProcThreadAttributeList` twice: size, then init);
 * 4. `CreateProcessW` with `EXTENDED_STARTUPINFO_PRESENT`, a UTF-16
 *    environment, no inherited handles, and `CREATE_SUSPENDED`;
 * 5. the console's pipe ends closed in the server (the console keeps its own);
 * 6. the process put in its own kill-on-close job, then resumed: it runs
 *    nothing before it is in the job, so nothing it starts can escape it.
 *
 * Everything made before a failure is undone, in reverse.
 *
 * @module
 */
import {
  addressOf,
  alloc,
  closeHandle,
  describeError,
  type Handle,
  handleAt,
  kernel32,
  lastError,
  W,
  wide,
} from "../../../ffi/kernel32.ts";
import {
  coord,
  PROCESS_INFORMATION,
  readProcessInformation,
  startupInfoEx,
} from "../../../ffi/win32_structs.ts";
import { PortalError } from "../../errors.ts";
import { prepareLaunch } from "../launch.ts";
import type { SpawnOptions, Terminal, TerminalEvents } from "../terminal.ts";
import { commandLine } from "./command_line.ts";
import { ConPtyTerminal } from "./conpty_terminal.ts";
import { environmentBlock } from "./environment_block.ts";
import { findWindowsProgram, isBatchFile } from "./executable.ts";
import { Job, KILLED_EXIT_CODE } from "./job.ts";
import { PseudoConsole } from "./pseudo_console.ts";

/** `CreateProcessW` takes at most 32767 characters of command line, its NUL included. */
const MAX_COMMAND_LINE = 32_767;
/** Buffer asked for the output pipe: room for a few full frames of a large console. */
const OUTPUT_PIPE_BYTES = 128 * 1024;

/**
 * Starts `opts.command` on a new pseudo console. Returns at once; output and
 * exit arrive through `events`. Throws {@link PortalError} if it cannot start.
 */
export function spawnConPty(opts: SpawnOptions, events: TerminalEvents): Terminal {
  const { path, env } = prepareLaunch(opts, { pty: true, findExecutable: findConsoleProgram });
  const line = commandLine(opts.command, opts.args);
  if (line.length >= MAX_COMMAND_LINE) {
    throw new PortalError(
      `The command line is ${line.length} characters long; Windows takes at most ` +
        `${MAX_COMMAND_LINE - 1}. Pass long input through process_write or a file instead.`,
    );
  }
  const k = kernel32();
  if (k.CreatePseudoConsole === null || k.ClosePseudoConsole === null) {
    throw new PortalError(
      "pty: true needs ConPTY, which Windows has from Windows 10 version 1809 on; this one " +
        "has none. Run the program with pty: false (pipes).",
    );
  }
  const undo: (() => void)[] = [];
  // Our pipe ends and the console's; each is set to null once closed, so undo closes it once.
  let inputRead: Handle = null, input: Handle = null, output: Handle = null;
  let outputWrite: Handle = null;
  undo.push(() => [inputRead, input, output, outputWrite].forEach(closeHandle));
  try {
    [inputRead, input] = createPipe(0);
    [output, outputWrite] = createPipe(OUTPUT_PIPE_BYTES);
    const mode = new Uint32Array([W.PIPE_NOWAIT]);
    if (k.SetNamedPipeHandleState(input, mode, null, null) === 0) {
      throw lastError("SetNamedPipeHandleState");
    }
    const hpc = createConsole(opts.cols, opts.rows, inputRead, outputWrite, undo);
    const child = startSuspended(opts.command, path, line, env, opts.cwd, hpc);
    const process = Deno.UnsafePointer.create(child.process);
    let thread = Deno.UnsafePointer.create(child.thread);
    undo.push(() => {
      k.TerminateProcess(process, KILLED_EXIT_CODE);
      closeHandle(process);
    });
    undo.push(() => closeHandle(thread));
    // The console holds its own copies of its ends; ours would keep the pipes open past it.
    closeHandle(inputRead);
    closeHandle(outputWrite);
    inputRead = outputWrite = null;
    const job = Job.create();
    undo.push(() => job.close());
    job.assign(process);
    if (k.ResumeThread(thread) === W.RESUME_FAILED) throw lastError("ResumeThread");
    closeHandle(thread);
    thread = null;
    const session = new PseudoConsole({ pid: child.pid, process, hpc, input, output, job });
    return new ConPtyTerminal(session, events);
  } catch (error) {
    for (const step of undo.reverse()) step();
    if (error instanceof PortalError) throw error;
    throw new PortalError(`Could not start ${opts.command}: ${(error as Error).message}.`);
  }
}

/**
 * The program `command` names ({@link findWindowsProgram}), refusing batch
 * files: CreateProcess would run them through cmd.exe, which splits the
 * command line by cmd's rules, not by those command_line.ts quotes for.
 */
function findConsoleProgram(command: string, env: Record<string, string>, cwd: string): string {
  const path = findWindowsProgram(command, env, cwd);
  if (isBatchFile(path)) {
    throw new PortalError(
      `${command} is a batch file (${path}), which only cmd.exe runs: start command ` +
        `'cmd.exe' with args ['/d', '/c', '${command}', …] instead (cmd then reads the ` +
        "arguments by its own rules).",
    );
  }
  return path;
}

/** An anonymous pipe, [read end, write end], neither end inheritable. */
function createPipe(bytes: number): [Handle, Handle] {
  const read = alloc(8);
  const write = alloc(8);
  if (kernel32().CreatePipe(read, write, null, bytes) === 0) throw lastError("CreatePipe");
  return [handleAt(read), handleAt(write)];
}

/** A pseudo console of `cols` x `rows` on the given pipe ends; closed on undo. */
function createConsole(
  cols: number,
  rows: number,
  input: Handle,
  output: Handle,
  undo: (() => void)[],
): Handle {
  const k = kernel32();
  const out = alloc(8);
  const hr = k.CreatePseudoConsole!(coord(cols, rows), input, output, 0, out);
  if (hr !== 0) throw new Error(`CreatePseudoConsole failed: ${describeError(hr)}`);
  const hpc = handleAt(out);
  // On the pool: with no one reading its output, the close could wait (undo closes our end).
  undo.push(() => void k.ClosePseudoConsole!(hpc).catch(() => {}));
  return hpc;
}

/**
 * `CreateProcessW` of `path` on the pseudo console `hpc`, suspended; throws a
 * PortalError that says why not.
 */
function startSuspended(
  command: string,
  path: string,
  line: string,
  env: Record<string, string>,
  cwd: string,
  hpc: Handle,
) {
  const k = kernel32();
  const size = new BigUint64Array(1);
  // The first call only reports the size (and fails, as documented).
  k.InitializeProcThreadAttributeList(null, 1, 0, size);
  const attributes = alloc(Number(size[0]));
  if (k.InitializeProcThreadAttributeList(attributes, 1, 0, size) === 0) {
    throw lastError("InitializeProcThreadAttributeList");
  }
  try {
    // The value is the HPCON itself, not its address (as in node-pty and Microsoft's sample).
    const attribute = BigInt(W.PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE);
    if (k.UpdateProcThreadAttribute(attributes, 0, attribute, hpc, 8n, null, null) === 0) {
      throw lastError("UpdateProcThreadAttribute");
    }
    const startup = startupInfoEx(addressOf(attributes), W.STARTF_USESTDHANDLES);
    const info = alloc(PROCESS_INFORMATION.size);
    // Children inherit "ignore Ctrl+C" (a server started in a new process group has it),
    // which would make the ^C typed into the console do nothing. node-pty resets it too.
    k.SetConsoleCtrlHandler(null, 0);
    const flags = W.EXTENDED_STARTUPINFO_PRESENT | W.CREATE_UNICODE_ENVIRONMENT |
      W.CREATE_SUSPENDED;
    const started = k.CreateProcessW(
      wide(path),
      wide(line),
      null,
      null,
      0,
      flags,
      environmentBlock(env),
      wide(cwd),
      startup,
      info,
    );
    if (started === 0) throw startError(command, path, cwd, k.GetLastError());
    return readProcessInformation(info);
  } finally {
    k.DeleteProcThreadAttributeList(attributes);
  }
}

function startError(command: string, path: string, cwd: string, code: number): PortalError {
  if (code === W.ERROR_BAD_EXE_FORMAT) {
    return new PortalError(
      `Cannot run ${command}: ${path} is not a program Windows can start. If it is a script, ` +
        "run its interpreter with the script as an argument.",
    );
  }
  if (code === W.ERROR_ACCESS_DENIED) {
    return new PortalError(`Cannot run ${command}: access denied to ${path} or to ${cwd}.`);
  }
  if (code === W.ERROR_DIRECTORY) {
    return new PortalError(`Cannot run ${command}: ${cwd} is not a usable working directory.`);
  }
  const reason = code === 0 ? "Windows gave no reason" : describeError(code);
  return new PortalError(`Cannot run ${command} (${path}) in ${cwd}: ${reason}.`);
}
