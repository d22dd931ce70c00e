/**
 * A seccomp filter (classic BPF, as `bwrap --seccomp FD` reads it: an array
 * of `struct sock_filter`) that keeps a sandbox's network to what its rule
 * allows. `none`: `socket` for IPv4, IPv6, raw packets and vsock is refused
 * with EACCES; `loopback` (a network namespace of its own, with its own
 * `lo`): vsock only. vsock is not per network namespace: it reaches the
 * hypervisor and the machine's other VMs, so no rule but `all` leaves it.
 * Both refuse `io_uring_setup` (io_uring opens sockets without calling
 * `socket`). Calls of another ABI on the same CPU (i386's `socketcall`, x32)
 * are refused outright, so none of them is a way around it. Netlink stays:
 * it is per network namespace, so it speaks of the sandbox's own `lo`
 * (`getaddrinfo` and `ip` use it). Everything else is allowed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { networkFilter } from "./seccomp.ts";
 *
 * const program = networkFilter("none");
 * assert.equal(program.length % 8, 0); // struct sock_filter: u16 code, u8 jt, u8 jf, u32 k
 * assert.equal(new DataView(program.buffer).getUint16(0, true), 0x20); // BPF_LD|BPF_W|BPF_ABS
 * assert.ok(networkFilter("loopback").length < program.length);
 * ```
 * @module
 */
import { SYSCALLS } from "./syscall_numbers.ts";

const LD_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGE = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const RET = 0x06; // BPF_RET | BPF_K
const ALLOW = 0x7fff0000; // SECCOMP_RET_ALLOW
const ERRNO = 0x00050000; // SECCOMP_RET_ERRNO | errno
const EACCES = 13;
const ENOSYS = 38;
/** Offsets in struct seccomp_data: nr, arch, then args[0]'s low half (little-endian). */
const NR = 0;
const ARCH = 4;
const ARG0 = 16;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_PACKET = 17;
const AF_VSOCK = 40;

/** The socket families each rule refuses. */
const REFUSED = {
  none: [AF_INET, AF_INET6, AF_PACKET, AF_VSOCK],
  loopback: [AF_VSOCK],
};

/** The filter of `rule` for this CPU (x86_64 or aarch64). */
export function networkFilter(rule: "none" | "loopback"): Uint8Array {
  const { socket, ioUringSetup, auditArch, foreignFrom } = SYSCALLS;
  type Insn = [code: number, jt: number, jf: number, k: number];
  const families = REFUSED[rule];
  // Jumps count instructions to skip; the last two are "allow" and "refuse".
  const body: Insn[] = [
    [LD_ABS, 0, 0, ARCH],
    [JEQ, 1, 0, auditArch],
    [RET, 0, 0, ERRNO | ENOSYS],
    [LD_ABS, 0, 0, NR],
    ...foreignFrom ? [[JGE, 0, 1, foreignFrom], [RET, 0, 0, ERRNO | ENOSYS]] as Insn[] : [],
    // Not socket: on to io_uring_setup, past the argument's load and the family tests.
    [JEQ, 0, families.length + 1, socket],
    [LD_ABS, 0, 0, ARG0],
    // The family tests: a match goes to "refuse"; the last one's miss to "allow".
    ...families.map((family, i): Insn => {
      const left = families.length - 1 - i;
      return [JEQ, left + 2, left === 0 ? 1 : 0, family];
    }),
    [JEQ, 1, 0, ioUringSetup],
    [RET, 0, 0, ALLOW],
    [RET, 0, 0, ERRNO | EACCES],
  ];
  const program = new Uint8Array(body.length * 8);
  const view = new DataView(program.buffer);
  body.forEach(([code, jt, jf, k], i) => {
    view.setUint16(i * 8, code, true);
    view.setUint8(i * 8 + 2, jt);
    view.setUint8(i * 8 + 3, jf);
    view.setUint32(i * 8 + 4, k, true);
  });
  return program;
}
