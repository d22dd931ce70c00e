/**
 * A full-screen program handing the terminal back to the shell: the step
 * that ends it returns once the shell is at its prompt, so what comes next
 * is never typed into the program on its way out (vim waits 100 ms for late
 * answers from its terminal, then flushes unread input: a `cat` typed then
 * was echoed and lost).
 */
import type { Portal } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { sharedPortal } from "../helpers/portal.ts";

// Each test drives its own shell: one server for both.
const { linuxTest } = sharedPortal();

const ROUNDS = 20;

async function bash(portal: Portal): Promise<number> {
  const started = await portal.startBash({ LESS: "", LESSHISTFILE: "-" });
  return started.id;
}

/** One step that must end with the shell reading at its prompt. */
async function atPrompt(portal: Portal, id: number, write: Record<string, unknown>) {
  const reply = await portal.call("process_write", { id, ...write });
  assertEquals([reply.state, reply.reason], ["waiting_for_input", "ready"], JSON.stringify(write));
  assert(reply.output.endsWith("READY$ "), `not at the prompt: ${JSON.stringify(reply.output)}`);
  return reply.output as string;
}

linuxTest(`bash → vim → :wq → cat, ${ROUNDS} rounds: every cat runs`, async (portal) => {
  await using dir = await tempDir();
  const id = await bash(portal);
  for (let round = 0; round < ROUNDS; round++) {
    const file = `${dir.path}/note${round}.txt`;
    // A short ttimeoutlen: after Escape vim waits that long for the rest of a key sequence.
    const opened = await portal.call("process_write", {
      id,
      content: `vim -u NONE -N -n --cmd 'set ttimeout ttimeoutlen=20' ${file}\n`,
    });
    assertEquals(opened.state, "waiting_for_input");
    await portal.call("process_write", { id, content: `ihello ${round}`, keys: ["Escape"] });
    await atPrompt(portal, id, { content: ":wq", keys: ["Enter"] });
    const shown = await atPrompt(portal, id, { content: `cat ${file}\n` });
    assert(shown.includes(`hello ${round}\n`), `round ${round}: ${JSON.stringify(shown)}`);
  }
});

linuxTest(`bash → less → q → echo, ${ROUNDS} rounds: every echo runs`, async (portal) => {
  await using dir = await tempDir();
  const file = `${dir.path}/lines.txt`;
  await Deno.writeTextFile(file, Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n"));
  const id = await bash(portal);
  for (let round = 0; round < ROUNDS; round++) {
    const paged = await portal.call("process_write", { id, content: `less ${file}\n` });
    assertEquals(paged.output.split("\n")[0], "line 0");
    await atPrompt(portal, id, { keys: ["q"] });
    const echoed = await atPrompt(portal, id, { content: `echo done-${round}\n` });
    assert(echoed.includes(`done-${round}\n`), `round ${round}: ${JSON.stringify(echoed)}`);
  }
});
