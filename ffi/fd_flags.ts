/**
 * A descriptor's flags: its status flags (`O_NONBLOCK`) and close-on-exec,
 * set through `fcntl` with the values of this OS (os_constants.ts).
 *
 * @module
 */
import { fcntl } from "./libc.ts";
import { C } from "./os_constants.ts";

/** Adds `flags` to the file status flags (F_SETFL) of `fd`; returns false on failure. */
export function addStatusFlags(fd: number, flags: number): boolean {
  const current = fcntl(fd, C.F_GETFL);
  return current >= 0 && fcntl(fd, C.F_SETFL, current | flags) === 0;
}

/** Sets FD_CLOEXEC on `fd` so children never inherit it; returns false on failure. */
export function setCloexec(fd: number): boolean {
  return fcntl(fd, C.F_SETFD, C.FD_CLOEXEC) === 0;
}
