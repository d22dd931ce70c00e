/**
 * A thread of the server that does bulk work no call waits for (the emulator
 * Worker's parsing of a flood) runs 10 nicer than the server, on Linux, so
 * that when every CPU is busy it leaves more of the server's share to the
 * thread that answers calls. Raising one's own nice value is what any user
 * may do; nothing here lowers one or touches another process. With
 * autogroup (Linux's default), nice values weigh threads against others of
 * the same session only: the host's session is its own, a `--no-host`
 * server shares its client's. macOS's `nice` would reach every thread of the
 * process, so there (and on Windows) this does nothing.
 *
 * Not for the commit Worker: the server's thread waits for it when a program
 * outruns the disk, and a nicer Worker made those waits, and the calls
 * behind them, longer.
 *
 * @module
 */
import { IS_LINUX, libc } from "./libc.ts";

/** How much nicer than the server a bulk thread is (capped at 19 by the kernel). */
const BULK_NICE_STEP = 10;

/** Makes the calling thread a bulk thread (see the module doc); a refusal changes nothing. */
export function asBulkThread(): void {
  // On Linux, nice() sets the calling thread's nice value, not the whole process's.
  if (IS_LINUX) libc().nice(BULK_NICE_STEP);
}
