/**
 * When the lazy screen (src/core/screen/screen.ts) hands output to its
 * emulator: not as it is written, but once the output pauses, at once when
 * the program asks its terminal something, during a flood once it is
 * `maxLag` behind, and before a snapshot. `fedSeq` shows how far it has
 * handed; the emulator is the real xterm, in its Worker.
 */
import { IDLE_MS, Screen } from "../../src/core/screen/screen.ts";
import { waitFor } from "../../dev/wait.ts";
import { assert, assertEquals } from "../helpers/assert.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("screen scheduler: output is handed over only once it pauses", async () => {
  const screen = new Screen(80, 24);
  try {
    const written = performance.now();
    screen.write(bytes("hello\r\n"));
    screen.write(bytes("world"));
    assertEquals(screen.fedSeq, 0);
    await waitFor("the screen to catch up on its own", () => screen.fedSeq, {
      until: (seq) => seq === 2,
    });
    // A timer started at the last write, so never sooner than the pause.
    assert(performance.now() - written >= IDLE_MS, "caught up before the output paused");
    assertEquals((await screen.snapshot()).lines, ["hello", "world"]);
  } finally {
    screen.dispose();
  }
});

Deno.test("screen scheduler: a question to the terminal is handed over at once and answered", async () => {
  const screen = new Screen(80, 24);
  try {
    const replies: string[] = [];
    screen.onReply((data) => replies.push(data));
    screen.write(bytes("abc"));
    assertEquals(screen.fedSeq, 0);
    // Where is the cursor? The answer must come before the program goes on.
    screen.write(bytes("\x1b[6n"));
    assertEquals(screen.fedSeq, 2);
    assert(screen.owesReplies, "the question is not answered yet");
    await waitFor("the answer", () => replies.join(""), { until: (r) => r.endsWith("R") });
    assertEquals(replies.join(""), "\x1b[1;4R");
    await waitFor("the answer to count", () => !screen.owesReplies);
  } finally {
    screen.dispose();
  }
});

Deno.test("screen scheduler: a flood is handed over as it comes once it is maxLag behind", async () => {
  const screen = new Screen(80, 24, { maxLag: 4096 });
  try {
    const line = bytes(`${"x".repeat(99)}\n`);
    let seq = 0;
    // Below the lag, nothing is parsed while output flows.
    while (seq < 40) screen.write(line, ++seq);
    assertEquals(screen.fedSeq, 0);
    // Past it (4 KiB behind), the screen starts on the backlog without waiting for a pause.
    while (seq < 41) screen.write(line, ++seq);
    assert(screen.fedSeq > 0, `${screen.fedSeq}`);
    await screen.snapshot();
    assertEquals(screen.fedSeq, seq);
  } finally {
    screen.dispose();
  }
});

Deno.test("screen scheduler: a snapshot hands over and parses everything written before it", async () => {
  const screen = new Screen(80, 24);
  try {
    screen.write(bytes("one\r\n"));
    screen.write(bytes("\x1b[1mtwo\x1b[0m"));
    const snapshot = await screen.snapshot();
    assertEquals(screen.fedSeq, 2);
    assertEquals(snapshot.lines, ["one", "two"]);
  } finally {
    screen.dispose();
  }
});

Deno.test("screen scheduler: output read back from the store survives the store deleting it", async () => {
  // The store's records, by seq, as the screen reads them back (its backlog).
  const stored = new Map<number, Uint8Array>();
  const screen = new Screen(80, 24, {
    backlog: (afterSeq) =>
      [...stored].filter(([seq]) => seq > afterSeq).map(([seq, data]) => ({ seq, bytes: data })),
  });
  try {
    for (const [seq, text] of [[1, "kept "], [2, "after "], [3, "clear"]] as const) {
      stored.set(seq, bytes(text));
      screen.write(bytes(text), seq);
    }
    assertEquals(screen.fedSeq, 0);
    // process_clear: what the screen has not parsed yet is copied out before the records go.
    screen.takeBacklog();
    stored.clear();
    assertEquals((await screen.snapshot()).lines, ["kept after clear"]);
  } finally {
    screen.dispose();
  }
});
