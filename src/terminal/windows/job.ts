/**
 * Job Objects: how Windows ends a whole tree of processes, having no process
 * groups. Two kinds, both with `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`, so
 * Windows terminates every process in them when their last handle closes,
 * which happens when the server exits or is killed (even by `taskkill /F`):
 *
 * - **The server's job** ({@link containChildren}): before its first child,
 *   the server puts itself in a job. Every process it starts, and every
 *   process those start, is born in it (Windows 8 and later nest jobs), so
 *   none can outlive the server, not even one started in the instant between
 *   a pipe child's spawn and its {@link adoptProcess}. This is what cargo
 *   does. If Windows refuses (a parent job that forbids nesting), the
 *   per-program jobs still end everything but such early grandchildren.
 * - **A job per program**: ConPTY children are created suspended and join
 *   theirs before their first instruction; pipe children (`Deno.Command`
 *   cannot start them suspended) join right after the spawn. `process_kill`
 *   terminates the program's job: the program and every descendant at once.
 *   When the program has ended, its job is closed, which ends whatever it
 *   left running.
 *
 * @module
 */
import { closeHandle, type Handle, kernel32, lastError, W } from "../../../ffi/kernel32.ts";
import { extendedLimits } from "../../../ffi/win32_structs.ts";

/** The exit code of every process a job termination ends (what TerminateProcess callers use). */
export const KILLED_EXIT_CODE = 1;

/** A kill-on-close Job Object. */
export class Job {
  #handle: Handle;

  private constructor(handle: Handle) {
    this.#handle = handle;
  }

  /** A new, empty job whose processes die when it is closed. Throws an `Error` on failure. */
  static create(): Job {
    const k = kernel32();
    const handle = k.CreateJobObjectW(null, null);
    if (handle === null) throw lastError("CreateJobObjectW");
    const limits = extendedLimits(W.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE);
    if (
      k.SetInformationJobObject(
        handle,
        W.JobObjectExtendedLimitInformation,
        limits,
        limits.length,
      ) === 0
    ) {
      const error = lastError("SetInformationJobObject");
      k.CloseHandle(handle);
      throw error;
    }
    return new Job(handle);
  }

  /**
   * Puts `process` (a handle with PROCESS_SET_QUOTA and PROCESS_TERMINATE) in
   * the job; throws an `Error` that says what that means for the program.
   */
  assign(process: Handle): void {
    if (kernel32().AssignProcessToJobObject(this.#handle, process) !== 0) return;
    const reason = lastError("AssignProcessToJobObject").message;
    throw new Error(
      `Windows would not put it in a Job Object (${reason}), so Portal could not end it with ` +
        "its children; it was stopped",
    );
  }

  /** Ends every process in the job; nothing happens once the job is closed. */
  terminate(): void {
    if (this.#handle !== null) kernel32().TerminateJobObject(this.#handle, KILLED_EXIT_CODE);
  }

  /** Closes the job, which ends whatever is still in it. Idempotent. */
  close(): void {
    closeHandle(this.#handle);
    this.#handle = null;
  }
}

/** The server's own job: undefined until tried, null if Windows refused it. */
let serverJob: Job | null | undefined;

/**
 * Puts the server in a kill-on-close job (once; see the module doc) that the
 * processes it starts from now on are born into.
 */
export function containChildren(): void {
  if (serverJob !== undefined) return;
  serverJob = null;
  let job: Job | undefined;
  try {
    job = Job.create();
    job.assign(kernel32().GetCurrentProcess());
    serverJob = job;
  } catch {
    // Nesting refused: the per-program jobs remain (see the module doc).
    job?.close();
  }
}

/** A started program's tree, as the pipe backend controls it. */
export interface AdoptedTree {
  /** Terminates the program and all its descendants. */
  terminate(): void;
  /** Once the program has ended: closes its job, ending what it left running. */
  release(): void;
}

/**
 * Puts the running process `pid` (a pipe child just spawned) in a new job.
 * Throws an `Error` if it cannot; a child that has already exited needs none.
 */
export function adoptProcess(pid: number): AdoptedTree {
  const k = kernel32();
  const access = W.PROCESS_SET_QUOTA | W.PROCESS_TERMINATE | W.SYNCHRONIZE |
    W.PROCESS_QUERY_LIMITED_INFORMATION;
  const process = k.OpenProcess(access, 0, pid);
  if (process === null) throw lastError(`OpenProcess(${pid})`);
  const job = Job.create();
  try {
    job.assign(process);
  } catch (error) {
    // Assigning an exited process fails; such a program has no tree left to control.
    if (k.WaitForSingleObject(process, 0) !== W.WAIT_OBJECT_0) {
      k.TerminateProcess(process, KILLED_EXIT_CODE);
      job.close();
      throw error;
    }
  } finally {
    k.CloseHandle(process);
  }
  return { terminate: () => job.terminate(), release: () => job.close() };
}
