/**
 * Programs on another machine (docs/remote.md): a throwaway sshd on
 * 127.0.0.1 whose user is the other machine, reached by key through an ssh
 * config file (`PORTAL_SSH_COMMAND="ssh -F FILE"`), with a `portal` there
 * that runs this checkout (dev/remote_machine.ts).
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "./helpers/assert.ts";
import { Portal } from "../dev/portal_client.ts";
import { remoteMachine } from "../dev/remote_machine.ts";
import { sshdAvailable } from "../dev/sshd.ts";

const ignore = Deno.build.os !== "linux" || !sshdAvailable();
const skipped = ignore ? "[skipped: needs root and sshd (package openssh-server)] " : "";

Deno.test({
  name: `${skipped}a kept python on another machine runs as its user and answers 6*7`,
  ignore,
  async fn() {
    await using machine = await remoteMachine();
    await using portal = await Portal.start({ env: { PORTAL_SSH_COMMAND: machine.sshCommand } });
    const started = await portal.call("process_start", {
      command: "python3",
      host: machine.alias,
      pty: true,
      keep: true,
      name: "calc",
      wait: "ready",
    });
    assertEquals(started.host, machine.alias);
    const uid = await portal.call("process_write", {
      id: started.id,
      content: "import os; os.getuid()\n",
    });
    assertMatch(uid.output, new RegExp(`\\b${machine.uid}\\b`));
    const answer = await portal.call("process_write", { id: started.id, content: "6*7\n" });
    assertEquals(answer.id, started.id);
    assertMatch(answer.output, /\b42\b/);
    const { processes } = await portal.call("process_list");
    const calc = processes.find((p: { id: number }) => p.id === started.id);
    assert(calc, JSON.stringify(processes));
    assertEquals([calc.host, calc.name, calc.status], [machine.alias, "calc", "running"]);
    await portal.call("process_kill", { id: started.id });
  },
});
