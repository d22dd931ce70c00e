/**
 * What a hostile remote can do to this side (docs/remote.md, "What a remote
 * may send"): a small script speaking MCP that says it is Portal
 * (dev/hostile_remote.ts), reached as a `PORTAL_MACHINE_<name>` transport,
 * answers with a 200 MB line, a line that never ends, nothing at all, a
 * reply whose ids and machine are not Portal's, or a question of its own.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { type Json, MAIN, Portal } from "../../dev/portal_client.ts";
import { fileURLToPath } from "node:url";
import { type ElicitRequest, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const HOSTILE = fileURLToPath(new URL("../../dev/hostile_remote.ts", import.meta.url));

/** The environment whose `machine: "evil"` runs the hostile remote in `mode`. */
const evil = (mode: string) => ({
  PORTAL_MACHINE_evil: `${Deno.execPath()} run --no-config --quiet ${HOSTILE} ${mode}`,
});

/** `promise`, or a throw naming `what` once `ms` have passed. */
async function within<T>(what: string, ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

for (const mode of ["flood", "endless"]) {
  Deno.test(`a remote's ${mode} line ends its link with a clear error; others are answered`, async () => {
    await using portal = await Portal.start({ env: evil(mode) });
    await using other = await Portal.start({ dir: portal.dir });
    const mine = await other.spawn("sleep", ["600"]);
    let settled = false;
    const failing = portal.fail("process_start", { command: "true", machine: "evil" })
      .finally(() => settled = true);
    // Another client of the same host goes on being answered while the line comes.
    let answered = 0;
    while (!settled) {
      const { processes } = await other.call("process_list");
      assert(processes.some((p: Json) => p.id === mine), JSON.stringify(processes));
      answered++;
    }
    const message = await within("the error", 15_000, failing);
    assertMatch(message, /^The link to evil is ended: it sent a line over 16 MiB/);
    assertMatch(message, /PORTAL_MACHINE_evil/);
    assert(answered > 0, "the other client was answered");
    // Nothing of it is listed: the start failed.
    const { processes } = await portal.call("process_list");
    assertEquals(processes.filter((p: Json) => p.machine !== undefined), []);
  });
}

Deno.test("a remote that says nothing ends a call by its wait and the link's margin", async () => {
  await using portal = await Portal.start({ env: evil("silent") });
  const message = await within(
    "the error",
    30_000,
    portal.fail("process_start", {
      command: "true",
      machine: "evil",
      wait: "ready",
      wait_ms: 1000,
    }),
  );
  assertMatch(message, /^evil did not answer process_start within 11 s \(its wait of 1 s and 10 s/);
});

Deno.test("a remote's reply whose id and machine are not Portal's is refused", async () => {
  await using portal = await Portal.start({ env: evil("forged") });
  const message = await portal.fail("process_start", { command: "true", machine: "evil" });
  assertMatch(message, /^evil's reply to process_start is not a Portal reply \(id: .*\): refused/);
  const { processes } = await portal.call("process_list");
  assertEquals(processes, []);
});

Deno.test("a remote asks the person only the agent's secret_prompt, in the agent's words", async () => {
  await using portal = await Portal.start({
    env: evil("asks"),
    capabilities: { elicitation: { form: {} } },
  });
  const asked: string[] = [];
  portal.client.setRequestHandler(ElicitRequestSchema, (request: ElicitRequest) => {
    asked.push(request.params.message);
    return { action: "accept", content: { secret: "hunter2" } };
  });
  const { id } = await portal.call("process_start", { command: "cat", machine: "evil" });
  // A call that asks for no secret: the remote's question is declined, no person is asked.
  assertMatch(await portal.fail("process_read_new", { id }), /answered: asked: decline$/);
  assertEquals(asked, []);
  // One that does: the person is asked what the agent asked, not what the remote wrote.
  const typed = await portal.fail("process_write", { id, secret_prompt: "the db password" });
  assertMatch(typed, /answered: asked: accept hunter2$/);
  assertEquals(asked.length, 1);
  assertMatch(asked[0], /asks for: the db password/);
  assert(!asked[0].includes("bank"), asked[0]);
});

Deno.test("a Portal's largest reply, a million characters, comes through the link whole", async () => {
  await using portal = await Portal.start();
  // The other side is a second Portal on stdio: the bound is far above what it can send.
  const box = `env PORTAL_DB_PATH=${portal.dir}/box.db ${Deno.execPath()} run -A ${MAIN} --no-host`;
  await using client = await Portal.start({ dir: portal.dir, env: { PORTAL_MACHINE_box: box } });
  const esc = "printf '\\033%.0s' $(seq 1 200000)";
  const started = await client.call("process_start", {
    command: "sh",
    args: ["-c", `head -c 800000 /dev/zero | tr '\\0' x; ${esc}; echo; echo END`],
    machine: "box",
    wait: "exit",
    max_chars: 10,
  });
  const read = await client.call("process_read", {
    id: started.id,
    duration: 3600,
    unit: "s",
    max_chars: 1_000_000,
  });
  const text = read.records.map((r: Json) => r.content).join("");
  assertEquals([read.id, read.machine], [started.id, "box"]);
  // The newest million characters: the x's, then 200,000 ESCs (6 bytes each in JSON), END.
  const escapes = text.split("\x1b").length - 1;
  assertEquals([text.length, escapes, text.endsWith("\nEND\n")], [1_000_000, 200_000, true]);
  assertEquals(text.indexOf("\x1b"), text.lastIndexOf("x") + 1, "the x's come first");
});
