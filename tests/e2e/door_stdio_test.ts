/**
 * The door out of the data path: a door whose stdin and stdout are pipes
 * hands them to the host, which reads and writes them itself (the door holds
 * them no more); on a terminal it relays, and leaves the terminal as it was.
 * Either way the session ends as before: when the client closes stdin, when
 * the door is killed (even by SIGKILL: its unkept programs end, and the
 * client's stdout ends), and when the host is killed (the client's stdout
 * ends, the door exits).
 */
import { hostPid, initializeRequest, MAIN, Portal, serverEnv } from "../../dev/portal_client.ts";
import { type RawLines, rawLines } from "../../dev/raw_lines.ts";
import { waitFor } from "../../dev/wait.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { posixTest } from "../helpers/platform.ts";
import { hostDir } from "../helpers/portal.ts";
import { pidAlive } from "../helpers/processes.ts";
import { fdFlags, openFds } from "../../dev/process_table.ts";

const HANDED = /through its host \(pid \d+, [^)]+\), which reads stdin and writes stdout itself/;

/** The pipes process `pid` has open for reading (Linux `/proc/<pid>/fd`), as `pipe:[inode]`. */
function pipesReadBy(pid: number): string[] {
  return openFds(pid).flatMap(({ fd, link }) => {
    if (!link.startsWith("pipe:")) return [];
    const flags = fdFlags(pid, fd); // undefined: closed meanwhile
    return flags !== undefined && (flags & 3) === 0 ? [link] : []; // O_RDONLY
  });
}

posixTest(
  "a door on pipes hands them to the host: over 50 calls it cannot read its client's stdin",
  async () => {
    await using portal = await Portal.start({ captureStderr: true });
    const door = portal.transport.pid!;
    await waitFor("the door's startup line", () => portal.stderr, {
      until: (text) => HANDED.test(text),
    });
    for (let i = 0; i < 50; i++) {
      await portal.call("process_list");
      // The host reads the client's stdin; the door holds no read end of any pipe the host
      // reads. (Its fd 0 and 1 are /dev/null; Deno's own copy of its stdout is a write end.)
      const hostReads = new Set(pipesReadBy(portal.serverPid));
      assertEquals(pipesReadBy(door).filter((pipe) => hostReads.has(pipe)), [], `call ${i}`);
      assert(hostReads.size > 0, "the host reads the client's stdin");
      assertEquals(Deno.readLinkSync(`/proc/${door}/fd/0`), "/dev/null");
    }
  },
  { only: "linux" },
);

/** A door of the host of `dir`, run by hand on pipes, its session open. */
async function rawDoor(dir: string): Promise<RawLines> {
  const door = await rawLines(dir);
  await door.initialize("raw");
  return door;
}

/** Starts `sleep 300` (unkept) through `door`; returns its pid. */
async function sleepIn(door: RawLines): Promise<number> {
  const { answer } = await door.request("tools/call", {
    name: "process_start",
    arguments: { command: "sleep", args: ["300"] },
  });
  return answer.result.structuredContent.os_pid;
}

/** Waits until the door's stdout has ended (EOF) and the door has exited. */
async function ends(door: RawLines, why: string): Promise<void> {
  await waitFor(`the client's stdout to end (${why})`, () => door.ended);
  await door.child.status;
}

posixTest("the client closing stdin ends its session: its programs, its stdout", async () => {
  await using dir = await hostDir();
  await using door = await rawDoor(dir.path);
  const sleep = await sleepIn(door);
  const host = hostPid(dir.path);
  assert(host !== undefined, "a host serves the door");
  await door.closeInput();
  await ends(door, "stdin closed");
  await waitFor("the session's sleep to die", () => !pidAlive(sleep));
  // The same host, not one a later look started: the session ended, the host did not.
  assertEquals(hostPid(dir.path), host, "the host stays");
});

posixTest("SIGKILL of a handed-over door ends its session and its client's stdout", async () => {
  await using dir = await hostDir();
  await using door = await rawDoor(dir.path);
  const sleep = await sleepIn(door);
  door.child.kill("SIGKILL");
  await ends(door, "the door killed");
  await waitFor("the killed door's sleep to die", () => !pidAlive(sleep));
});

posixTest("SIGKILL of the host ends the client's stdout, and the door exits", async () => {
  await using dir = await hostDir();
  await using door = await rawDoor(dir.path);
  const sleep = await sleepIn(door);
  Deno.kill(hostPid(dir.path)!, "SIGKILL");
  await ends(door, "the host killed");
  assertEquals((await door.child.status).code, 0);
  await waitFor("the sleep to die with the host", () => !pidAlive(sleep));
});

posixTest(
  "a door on a terminal relays, leaves the terminal blocking, and ends at its EOF",
  async () => {
    await using outer = await Portal.start({ noHost: true });
    await using dir = await hostDir();
    const { id, os_pid } = await outer.call("process_start", {
      command: Deno.execPath(),
      args: ["run", "-A", MAIN],
      env: await serverEnv(dir.path),
      pty: true,
    });
    await outer.readUntil(
      id,
      (text) => /relaying stdin and stdout \(stdin is a terminal/.test(text),
    );
    const initialize = initializeRequest("tty");
    // wait "none": a step that waited would take the answer into its own reply, leaving
    // nothing for the read below whenever the door answered within the step.
    const content = `${JSON.stringify(initialize)}\n`;
    await outer.call("process_write", { id, content, wait: "none" });
    await outer.readUntil(id, (text) => text.includes('"serverInfo"') && text.includes('"id":1}'));
    // The terminal's open file is the shell's too: the door must not have made it nonblocking.
    const flags = fdFlags(os_pid, 0)!;
    assertEquals(flags & 0o4000, 0, `flags ${flags.toString(8)}`);
    await outer.call("process_write", { id, content: "\x04" });
    const ended = await outer.waitExit(id);
    assertMatch(String(ended.exit_code), /^0$/);
  },
  { only: "linux" },
);
