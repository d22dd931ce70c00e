/**
 * An agent's ssh session to a throwaway sshd (`dev/sshd.ts`), logged in:
 * what the relay and shell integration tests start from.
 *
 * @module
 */
import type { Portal } from "../../dev/portal_client.ts";
import type { Sshd } from "../../dev/sshd.ts";
import { assertEquals, assertMatch } from "./assert.ts";

/**
 * Starts ssh to `sshd` on a PTY, answers its password prompt (echo off) with
 * `secret`, and waits for the remote shell's prompt; returns the process id.
 */
export async function sshLogin(portal: Portal, sshd: Sshd): Promise<number> {
  const started = await portal.call("process_start", {
    command: "ssh",
    args: sshd.sshArgs,
    pty: true,
    wait: "ready",
    wait_ms: 20_000,
  });
  assertEquals(started.state, "waiting_for_secret");
  const login = await portal.call("process_write", {
    id: started.id,
    secret: sshd.password,
    keys: ["Enter"],
    wait_ms: 20_000,
  });
  assertMatch(login.output, /\$ $/);
  return started.id;
}
