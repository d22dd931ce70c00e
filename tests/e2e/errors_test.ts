import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { ID_TOOLS } from "../helpers/id_tools.ts";
import { type Json, MAIN, Portal } from "../../dev/portal_client.ts";
import { sharedPortal } from "../helpers/portal.ts";

// Each test asserts only about its own processes: one server serves them all.
const { portalTest } = sharedPortal();

/** The ids of the server's processes: what a failed call must leave as it was. */
async function ids(portal: Portal): Promise<number[]> {
  return (await portal.call("process_list")).processes.map((p: Json) => p.id);
}

portalTest(
  "an unknown id is a tool error that points to process_list, for every tool",
  async (portal) => {
    for (const [tool, args] of ID_TOOLS) {
      assertMatch(
        await portal.fail(tool, { id: 42, ...args }),
        /No process with id 42\. Call process_list/,
        tool,
      );
    }
  },
);

portalTest(
  "missing or ill-typed arguments are tool errors, an unknown tool Invalid params; the server carries on",
  async (portal) => {
    const before = await ids(portal);
    assertMatch(await portal.fail("process_start", {}), /command/);
    assertMatch(await portal.fail("process_start", { command: 7 }), /command/);
    assertMatch(await portal.fail("process_start", { command: "true", args: "-l" }), /args/);
    assertMatch(
      await portal.fail("process_start", { command: "true", timeout_ms: -1 }),
      /timeout_ms/,
    );
    assertMatch(
      await portal.fail("process_start", { command: "true", cols: 0, pty: true }),
      /cols/,
    );
    assertMatch(await portal.fail("process_read", { id: "one" }), /id/);
    assertMatch(await portal.fail("process_read", { id: 1, unit: "minutes" }), /unit/);
    assertMatch(await portal.fail("process_write", { id: 1 }), /content/);
    assertMatch(await portal.fail("program_record", { program: "ssh" }), /needs_pty/);
    assertMatch(
      await portal.invalid("no_such_tool", {}),
      /^Unknown tool "no_such_tool"; Portal's tools: process_start, process_read, /,
    );
    assertEquals(await ids(portal), before);
  },
);

portalTest("start errors: missing command, missing cwd, cwd that is a file", async (portal) => {
  const before = await ids(portal);
  assertMatch(
    await portal.fail("process_start", { command: "no-such-program-xyz" }),
    /Command not found: "no-such-program-xyz"\. It is in no directory of the program's PATH/,
  );
  assertMatch(
    await portal.fail("process_start", { command: "ls -la" }),
    /Command not found: "ls -la"\..*not through a shell: put arguments in args/,
  );
  await using dir = await tempDir();
  const plain = `${dir.path}/plain.txt`;
  await Deno.writeTextFile(plain, "not a program\n");
  assertMatch(
    await portal.fail("process_start", { command: plain }),
    /is not an executable file/,
  );
  assertMatch(
    await portal.fail("process_start", { command: "ls", cwd: "/no/such/dir" }),
    /cwd "\/no\/such\/dir" does not exist/,
  );
  assertMatch(
    await portal.fail("process_start", { command: "ls", cwd: plain }),
    /is not a directory/,
  );
  assertEquals(await ids(portal), before, "failed starts leave nothing");
});

portalTest(
  "state errors: write to an exited process, cleanup of a running one, bad signals",
  async (portal) => {
    const done = await portal.spawn("true");
    await portal.waitExit(done);
    assertMatch(
      await portal.fail("process_write", { id: done, content: "x\n" }),
      /Cannot write to process \d+: it has exited \(with code 0\)/,
    );
    assertMatch(
      await portal.fail("process_signal", { id: done, signal: "SIGINT" }),
      /has exited/,
    );

    const running = await portal.spawn("sleep", ["1000"]);
    assertMatch(
      await portal.fail("process_cleanup", { id: running }),
      /still running: call process_kill first/,
    );
    assertMatch(
      await portal.fail("process_signal", { id: running, signal: "SIGBOGUS" }),
      /Unknown signal "SIGBOGUS". Use a name or number: SIGHUP/,
    );
    assertMatch(
      await portal.fail("process_signal", { id: running, signal: 999 }),
      /out of range/,
    );
    assertMatch(
      await portal.fail("process_screen", { id: running }),
      /runs on pipes, which have no screen.*pty: true/,
    );
    assertEquals((await portal.call("process_inspect", { id: running })).status, "running");
  },
);

portalTest(
  "a tool error carries its kind and data in _meta, its wording as it was",
  async (portal) => {
    for (const [tool, args] of ID_TOOLS) {
      assertEquals(await portal.refusal(tool, { id: 42, ...args }), { kind: "not_found", id: 42 });
    }
    assertEquals(await portal.refusal("process_read", { id: "one" }), { kind: "invalid" });
    assertEquals(await portal.refusal("process_start", { command: "ls", cwd: "/no/such" }), {
      kind: "invalid",
    });

    const done = await portal.spawn("true");
    await portal.waitExit(done);
    const write = { id: done, content: "x\n" };
    assertEquals(await portal.refusal("process_write", write), { kind: "ended", id: done });
    assertMatch(await portal.fail("process_write", write), /^Cannot write to process \d+: it has/);

    const running = await portal.spawn("sleep", ["1000"]);
    const cleanup = { id: running };
    assertEquals(await portal.refusal("process_cleanup", cleanup), {
      kind: "conflict",
      id: running,
    });
    assertEquals(await portal.refusal("process_screen", { id: running }), {
      kind: "unsupported",
      id: running,
    });
  },
);

Deno.test("a relayed error keeps the other Portal's kind, with its machine and the local id", async () => {
  await using portal = await Portal.start();
  const box = `env PORTAL_DB_PATH=${portal.dir}/box.db ${Deno.execPath()} run -A ${MAIN} --no-host`;
  await using client = await Portal.start({
    dir: portal.dir,
    env: { PORTAL_MACHINE_box: box, PORTAL_MACHINE_gone: "false" },
  });
  const { id } = await client.call("process_start", {
    command: "true",
    machine: "box",
    wait: "exit",
  });
  assertEquals(await client.refusal("process_write", { id, content: "x\n" }), {
    kind: "ended",
    id,
    machine: "box",
  });
  assertEquals(await client.refusal("process_start", { command: "true", machine: "gone" }), {
    kind: "unreachable",
    machine: "gone",
  });
});

portalTest(
  "start rejects what exec can't carry, and timeouts a timer can't hold",
  async (portal) => {
    const before = await ids(portal);
    assertMatch(
      await portal.fail("process_start", { command: "echo", args: ["a\0b"] }),
      /must not contain NUL/,
    );
    for (const name of ["A=B", ""]) {
      assertMatch(
        await portal.fail("process_start", { command: "echo", env: { [name]: "x" } }),
        /Invalid environment variable/,
      );
    }
    assertMatch(
      await portal.fail("process_start", { command: "sleep", args: ["9"], timeout_ms: 3e9 }),
      /timeout_ms/,
    );
    assertEquals(await ids(portal), before);
  },
);
