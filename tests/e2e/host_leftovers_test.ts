/**
 * What a host leaves behind: nothing once it ends, and what a SIGKILL left
 * is removed by the next host to start (issue 28, item 9).
 */
import { hostPid, Portal } from "../../dev/portal_client.ts";
import { waitFor } from "../../dev/wait.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { posixTest } from "../helpers/platform.ts";
import { hostDir } from "../helpers/portal.ts";
import { pidAlive } from "../helpers/processes.ts";

/** The names in the host directory of `dir`, sorted. */
function socketFiles(dir: string): string[] {
  return [...Deno.readDirSync(`${dir}/run/portal`)].map((entry) => entry.name).sort();
}

posixTest(
  "a host killed with SIGKILL leaves no socket files once the next one starts",
  async () => {
    await using dir = await hostDir();
    {
      await using portal = await Portal.start({ dir: dir.path });
      await portal.call("process_list");
    }
    const killed = hostPid(dir.path)!;
    const left = socketFiles(dir.path);
    assertEquals(left.map((name) => name.replace(/^host-.*\.sock/, "S")), ["S", "S.fds", "S.lock"]);
    Deno.kill(killed, "SIGKILL");
    await waitFor(`host ${killed} to die`, () => !pidAlive(killed));
    assertEquals(socketFiles(dir.path), left, "a SIGKILL leaves them");
    // Another database's host, in the same directory, starts and sweeps.
    {
      await using portal = await Portal.start({
        dir: dir.path,
        env: { PORTAL_DB_PATH: `${dir.path}/other.db` },
      });
      await portal.call("process_list");
      const now = socketFiles(dir.path);
      assert(!left.some((name) => now.includes(name)), `left: ${left}; now: ${now}`);
      assertEquals(now.length, 3, now.join(" "));
      const pid = hostPid(dir.path)!;
      Deno.kill(pid, "SIGTERM");
      await waitFor(`host ${pid} to end`, () => !pidAlive(pid));
    }
    assertEquals(socketFiles(dir.path), [], "a host that ends removes its own");
  },
);

posixTest(
  "shell files of a host killed with SIGKILL are gone once the next host starts",
  async () => {
    await using dir = await hostDir();
    const tmp = `${dir.path}/tmp`;
    Deno.mkdirSync(tmp);
    const shellFiles = () =>
      [...Deno.readDirSync(tmp)].map((entry) => entry.name).filter((name) =>
        /^portal-(bash|zsh)-/.test(name)
      );
    const env = { TMPDIR: tmp };
    // The shell deletes its init file once it has read it (at its first prompt): this one's
    // .bashrc, read first, keeps it from getting there while the host is killed.
    await Deno.mkdir(`${dir.path}/home`, { recursive: true });
    await Deno.writeTextFile(`${dir.path}/home/.bashrc`, "sleep 300\n");
    {
      await using portal = await Portal.start({ dir: dir.path, env });
      await portal.call("process_start", {
        command: "bash",
        args: ["-i"],
        pty: true,
        keep: true,
      });
    }
    const killed = hostPid(dir.path)!;
    await waitFor("bash's init file, while it reads its .bashrc", shellFiles, {
      until: (files) => files.length === 1,
    });
    assertMatch(shellFiles()[0], new RegExp(`^portal-bash-${killed}-`));
    Deno.kill(killed, "SIGKILL");
    await waitFor(`host ${killed} to die`, () => !pidAlive(killed));
    assertEquals(shellFiles().length, 1, "a SIGKILL leaves it");
    await using portal = await Portal.start({ dir: dir.path, env, captureStderr: true });
    await portal.call("process_list");
    assertEquals(shellFiles(), []);
    assertMatch(portal.stderr, /shell integration directories left by killed servers removed: 1/);
  },
);
