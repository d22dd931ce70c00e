/**
 * `portal remote install MACHINE` (docs/remote.md) on "another machine" that
 * has no Portal, no Deno of its own and every registry at a closed port: a
 * throwaway sshd's new user (dev/remote_machine.ts) whose PATH holds every
 * program of this machine but Deno. Run from this clone, the install makes
 * the build and copies it with this Deno through ssh; then process_start with
 * `machine` works, a second install copies nothing, a damaged version is found
 * by its checksums and copied again, a copy cut short puts nothing in place,
 * another version run from a build (as the npm package runs) goes beside the
 * first, a version that cannot start there (a home mounted noexec) is taken
 * out again with the launcher left as it was, uninstall removes them all, and PORTAL_REMOTE_INSTALL=auto sets the
 * machine up at the first process_start.
 *
 * @module
 */
import { build } from "../../dev/build.ts";
import { Portal } from "../../dev/portal_client.ts";
import { remoteMachine } from "../../dev/remote_machine.ts";
import { sshdAvailable } from "../../dev/sshd.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { runCli } from "../helpers/cli.ts";
import { closedPort, noRegistry, pathWithoutDeno } from "../helpers/npm_registry.ts";
import { pythonAnswers } from "../helpers/python_repl.ts";

const ignore = Deno.build.os !== "linux" || !sshdAvailable();
const skipped = ignore ? "[skipped: needs root and sshd (package openssh-server)] " : "";

/** The PATH sshd gives a user's commands (Debian's, as /etc/login.defs says). */
const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

/** Runs `script` as the machine's user, in its home; its stdout. */
function asUser(user: string, script: string): string {
  const { stdout } = new Deno.Command("su", { args: ["-s", "/bin/sh", "-c", script, user] })
    .outputSync();
  return new TextDecoder().decode(stdout).trim();
}

/** A Portal started with `env` runs python on the machine "bare", which answers 6 * 7. */
async function answersOnBare(env: Record<string, string>): Promise<void> {
  await using portal = await Portal.start({ env });
  const { step } = await pythonAnswers({
    call: (name, args) =>
      portal.call(name, { ...args, machine: name === "process_start" ? "bare" : undefined }),
  });
  assertEquals(step.output.trim().split("\n")[0], "42");
}

Deno.test({
  name: `${skipped}portal remote install sets up a machine with no Deno and no registry`,
  ignore,
  async fn(t) {
    await using dir = await tempDir("portal-remote-install-");
    await Deno.chmod(dir.path, 0o755);
    // The system's PATH (not this user's: a version manager's shims in root's home), minus Deno.
    const path = await pathWithoutDeno(`${dir.path}/path`, SYSTEM_PATH);
    await using machine = await remoteMachine("bare", {
      bare: { path, env: noRegistry(closedPort()) },
    });
    const env = { PORTAL_SSH_COMMAND: machine.sshCommand };
    await using cli = await tempDir("portal-remote-install-cli-");
    const python = { command: "python3", args: ["-q"], pty: true, wait: "ready" };

    await t.step("before: process_start with machine names the one command", async () => {
      await using portal = await Portal.start({ env });
      const error = await portal.fail("process_start", { ...python, machine: "bare" });
      assertMatch(error, /portal remote install bare/);
    });

    let id = "";
    await t.step(
      "install: the build and this Deno, checked, then process_start works",
      async () => {
        const run = await runCli(cli.path, ["remote", "install", "bare"], env);
        assertEquals(run.code, 0, run.stderr);
        assertMatch(
          run.stdout,
          /^bare: portal \S+ in ~\/\.local\/share\/portal\/(\S+), with a Deno/,
        );
        id = /share\/portal\/([^,\s]+)/.exec(run.stdout)![1];
        const listed = asUser(
          machine.user,
          `cd "$HOME/.local/share/portal/${id}" && find . -type f`,
        )
          .split("\n");
        for (
          const file of ["main.js", "build.json", "deno", "src/core/screen/emulator_worker.js"]
        ) {
          assert(listed.includes(`./${file}`), `${file} is installed: ${listed}`);
        }
        assertEquals(
          asUser(machine.user, 'grep -c "PATH" "$HOME/.bashrc"'),
          "1",
          "no shell file edited",
        );
        await answersOnBare(env);
      },
    );

    await t.step("a second install copies nothing", async () => {
      const run = await runCli(cli.path, ["remote", "install", "bare"], env);
      assertEquals(run.code, 0, run.stderr);
      assertMatch(
        run.stdout,
        new RegExp(`Portal ${id.replace("+", "\\+")} is installed.*nothing copied`),
      );
    });

    /** Whether every file of version `id` there matches its SHA-256 sum. */
    const whole = (id: string) =>
      asUser(
        machine.user,
        `cd "$HOME/.local/share/portal/${id}" && sha256sum -c --quiet SHA256SUMS && echo whole`,
      ) === "whole";
    /** The version the launcher there runs (its mark's). */
    const launched = () =>
      asUser(machine.user, 'sed -n "s/^# portal-launcher //p" "$HOME/.local/bin/portal"');

    await t.step("a damaged version is found by its checksums and copied again", async () => {
      asUser(machine.user, `printf x >> "$HOME/.local/share/portal/${id}/main.js"`);
      assert(!whole(id), "main.js no longer matches its sum");
      const run = await runCli(cli.path, ["remote", "install", "bare"], env);
      assertEquals(run.code, 0, run.stderr);
      assertMatch(run.stdout, /MB copied/);
      assert(whole(id), "the version is whole again");
    });

    // Another version: a build, run as the npm package runs it (deno run --no-config main.js),
    // labelled with another id as a later release's build would be.
    const other = `${dir.path}/build`;
    await build(other);
    const relabel = async (label: string) => {
      const manifest = JSON.parse(await Deno.readTextFile(`${other}/build.json`));
      await Deno.writeTextFile(`${other}/build.json`, JSON.stringify({ ...manifest, id: label }));
      return label;
    };
    const fromBuild = ["--no-config", `${other}/main.js`];

    await t.step("a copy cut short puts nothing in place", async () => {
      const cut = await relabel("0.0.1+cutshort0000");
      // ssh that passes on only the first 200 kB of what Portal sends, then ends the stream.
      await Deno.writeTextFile(`${dir.path}/cut-ssh`, '#!/bin/sh\nhead -c 200000 | ssh "$@"\n', {
        mode: 0o755,
      });
      const run = await runCli(cli.path, ["remote", "install", "bare"], {
        PORTAL_SSH_COMMAND: machine.sshCommand.replace(/^ssh /, `${dir.path}/cut-ssh `),
      }, fromBuild);
      assertEquals(run.code, 1, run.stdout);
      assertMatch(run.stderr, /copying to bare failed .*nothing was put in place/);
      const share = asUser(machine.user, 'ls -A "$HOME/.local/share/portal"');
      assert(!share.includes(cut) && !share.includes(".incoming"), `nothing left: ${share}`);
      assertEquals(launched(), id, "the launcher still runs the whole version");
      assert(whole(id));
    });

    let next = "";
    await t.step("another version, from a build, goes beside the first", async () => {
      next = await relabel("0.0.2+beside000000");
      const run = await runCli(cli.path, ["remote", "install", "bare"], env, fromBuild);
      assertEquals(run.code, 0, run.stderr);
      assertMatch(run.stdout, /MB copied/);
      assert(whole(id) && whole(next), "both versions are there, whole");
      assertEquals(launched(), next);
      await answersOnBare(env);
    });

    await t.step("a version that does not run there is taken out; the launcher stays", async () => {
      // A home mounted noexec: the copy arrives whole and checked, but its Deno cannot start.
      const share = `${asUser(machine.user, 'echo "$HOME"')}/.local/share/portal`;
      const sh = (script: string) => new Deno.Command("sh", { args: ["-c", script] }).outputSync();
      assert(
        sh(`mount -t tmpfs -o noexec tmpfs "${share}" && chown ${machine.user} "${share}"`).success,
      );
      try {
        const run = await runCli(cli.path, ["remote", "install", "bare"], env, fromBuild);
        assertEquals(run.code, 1, run.stdout);
        assertMatch(
          run.stderr,
          /does not run there, so it was taken out again:.*Permission denied/s,
        );
        const left = asUser(machine.user, `ls -A "${share}"`);
        assertEquals(left, "", "nothing left of it");
      } finally {
        sh(`umount "${share}"`);
      }
      assertEquals(launched(), next, "the launcher still runs the version that answers");
      assert(whole(next));
    });

    await t.step("uninstall removes every version and the launcher", async () => {
      const run = await runCli(cli.path, ["remote", "uninstall", "bare"], env);
      assertEquals(run.code, 0, run.stderr);
      assertMatch(run.stdout, /removed .*\.local\/bin\/portal/);
      assertEquals(run.stdout.match(/^removed .*\/share\/portal\/\d\S*\+/gm)?.length, 2);
      // Portal's data there (programs.db, the program registry) stays: it is the user's.
      const left = asUser(machine.user, 'ls -A "$HOME/.local/share/portal" "$HOME/.local/bin"');
      assert(!/\+|portal$|incoming/m.test(left), `no version and no launcher left: ${left}`);
    });

    await t.step("PORTAL_REMOTE_INSTALL=auto installs at the first process_start", async () => {
      await answersOnBare({ ...env, PORTAL_REMOTE_INSTALL: "auto" });
      assertMatch(asUser(machine.user, 'head -n 2 "$HOME/.local/bin/portal"'), /portal-launcher/);
    });
  },
});
