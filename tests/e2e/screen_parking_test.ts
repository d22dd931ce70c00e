/**
 * Parked screens (src/core/screen/screen.ts, live_screens.ts): past the
 * budget of live emulators, the least recently used idle one is dropped and
 * rebuilt from its records when it is needed. Here, screens driven directly
 * (the real xterm in its Worker, a store of records as a Map): a rebuilt
 * screen is the live one, questions answered once, resizes replayed where
 * they came, and the store keeps what a parked screen needs. Through the
 * server: vim and a scrolled bash, parked by other terminals, then rebuilt,
 * against the same programs on a server where nothing is parked.
 */
import { type Chunk, Screen } from "../../src/core/screen/screen.ts";
import { LiveScreens } from "../../src/core/screen/live_screens.ts";
import { LIVE_SCREENS } from "../../src/limits.ts";
import { BASH_PROMPT, type Json, Portal } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { posixTest } from "../helpers/platform.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

/** A record store as a screen reads it back: chunks by seq. */
class Records {
  readonly chunks: Chunk[] = [];
  backlog = (afterSeq: number, maxBytes: number): Chunk[] => {
    const out: Chunk[] = [];
    let size = 0;
    for (const chunk of this.chunks) {
      if (chunk.seq <= afterSeq) continue;
      out.push(chunk);
      size += chunk.bytes.length;
      if (size >= maxBytes) break;
    }
    return out;
  };
  /** Stores `text` as the next record and tells `screens` of it. */
  write(text: string, ...screens: Screen[]): void {
    const chunk = { seq: this.chunks.length + 1, bytes: bytes(text) };
    this.chunks.push(chunk);
    for (const screen of screens) screen.write(chunk.bytes, chunk.seq);
  }
}

/** Everything a screen shows: both buffers, scrollback, cursor, title, and its redraw. */
async function everything(screen: Screen) {
  return {
    primary: await screen.snapshot({ buffer: "primary", scrollback: 1000 }),
    alternate: await screen.snapshot({ buffer: "alternate" }),
    modes: await screen.modes(),
    redraw: (await screen.serialize()).data,
  };
}

/** Output that leaves state behind: colours, a scroll region, tab stops, a title, 300 lines. */
const SESSION = [
  "\x1b]2;first title\x07\x1b[1;31mred\x1b[0m plain\r\n",
  ...Array.from({ length: 300 }, (_, i) => `line ${i}\r\n`),
  "\x1b[5;10r\x1b[3g\x1b[1;20H\x1bH\x1b[?1h\x1b[?2004h",
  "\x1b[10;1Hin the region\r\n\r\n\tafter a tab",
  "\x1b[?1049h\x1b[2J\x1b[Halternate screen\x1b[3;3H",
];

Deno.test("parking: a rebuilt screen is the live one, and goes on the same", async () => {
  const records = new Records();
  const budget = new LiveScreens(1);
  const live = new Screen(80, 24, { live: new LiveScreens(10) });
  const parked = new Screen(80, 24, { backlog: records.backlog, live: budget });
  try {
    for (const [i, text] of SESSION.entries()) {
      records.write(text, live, parked);
      if (i === 150) {
        live.resize(100, 30);
        parked.resize(100, 30);
      }
    }
    // A question answered by the live emulator must not be answered again by the rebuilt one.
    const replies: string[] = [];
    parked.onReply((data) => replies.push(data));
    records.write("\x1b[6n", live, parked);
    await waitFor("the answer", () => replies.length === 1 && !parked.owesReplies);
    const before = await everything(live);
    assertEquals(await everything(parked), before);

    // Another screen's use parks it: the records are all the store must keep.
    const other = new Screen(80, 24, { backlog: () => [], live: budget });
    assert(!parked.built, "not parked");
    assertEquals(parked.fedSeq, 0);
    // Looking at it answers from the screen it had, without a rebuild.
    assertEquals(await parked.snapshot(), before.alternate);
    assert(!parked.built, "a plain snapshot rebuilt it");
    // A resize and output while parked wait for the rebuild.
    records.write("\x1b[?1049l more\r\n", live, parked);
    live.resize(90, 20);
    parked.resize(90, 20);
    assert(!parked.built, "output or a resize rebuilt a parked screen");
    assertEquals(await everything(parked), await everything(live));
    assert(parked.built);
    assert(!other.built, "the rebuilt one parks the other");
    assertEquals(replies, ["\x1b[3;3R"]);

    // It goes on as the live one does, and answers a new question once.
    records.write("\x1b[2;5H\x1b[6n", live, parked);
    await waitFor("the new answer", () => replies.length === 2);
    assertEquals(replies[1], "\x1b[2;5R");
    assertEquals(await everything(parked), await everything(live));
    other.dispose();
  } finally {
    live.dispose();
    parked.dispose();
  }
});

Deno.test("parking: a question to a parked screen rebuilds it and is answered once", async () => {
  const records = new Records();
  const screen = new Screen(80, 24, { backlog: records.backlog });
  try {
    const replies: string[] = [];
    screen.onReply((data) => replies.push(data));
    records.write("abc\x1b[6n", screen);
    await waitFor("the first answer", () => replies.length === 1 && !screen.owesReplies);
    assert(screen.park());
    records.write("\r\nxy\x1b[6n", screen);
    assert(screen.owesReplies);
    await waitFor("the second answer", () => replies.length === 2 && !screen.owesReplies);
    assertEquals(replies, ["\x1b[1;4R", "\x1b[2;3R"]);
  } finally {
    screen.dispose();
  }
});

Deno.test("parking: only a screen whose records are all kept, and short, is parked", async () => {
  const records = new Records();
  const kept = new Screen(80, 24, { backlog: records.backlog });
  // The cap dropped some of its records: what is left cannot rebuild it.
  const dropped = new Screen(80, 24, { backlog: records.backlog });
  // Too much output to replay (over half its maxLag).
  const long = new Screen(80, 24, { backlog: records.backlog, maxLag: 64 });
  // No store to replay from.
  const unstored = new Screen(80, 24);
  const screens = [kept, dropped, long, unstored];
  try {
    records.write("x".repeat(40), ...screens);
    dropped.historyDropped();
    await Promise.all(screens.map((screen) => screen.snapshot()));
    assertEquals(screens.map((screen) => screen.park()), [true, false, false, false]);
    assertEquals(screens.map((screen) => screen.built), [false, true, true, true]);
    assertEquals((await dropped.snapshot()).lines, ["x".repeat(40)]);
  } finally {
    for (const screen of screens) screen.dispose();
  }
});

Deno.test("parking: a parked screen whose records are cleared rebuilds from their copy", async () => {
  const records = new Records();
  const screen = new Screen(80, 24, { backlog: records.backlog });
  try {
    records.write("kept\r\n", screen);
    await screen.snapshot();
    assert(screen.park());
    // process_clear: the records go, the screen stays.
    screen.takeBacklog();
    records.chunks.length = 0;
    assertEquals((await screen.snapshot()).lines, ["kept"]);
    // Its records are gone: it can no longer be parked.
    assert(!screen.parkable);
  } finally {
    screen.dispose();
  }
});

/** A server and, in it, vim editing a file and a bash that printed more than its scrollback. */
async function vimAndShell(portal: Portal, dir: string) {
  await Deno.writeTextFile(`${dir}/note.txt`, "first line\nsecond line\n");
  const vim = await portal.spawn("vim", ["-u", "NONE", "-N", "-n", "-i", "NONE", "note.txt"], {
    pty: true,
    cwd: dir,
  });
  await portal.screenUntil(vim, (s) => s.lines[0] === "first line");
  const { id: bash } = await portal.call("process_start", {
    command: "bash",
    args: ["--norc", "--noprofile", "-i"],
    pty: true,
    cwd: dir,
    env: { PS1: BASH_PROMPT },
    wait: "ready",
  });
  await portal.call("process_write", { id: bash, content: "seq 1 3000; printf '\\e]2;done\\a'\n" });
  await portal.screenUntil(bash, (s) => s.lines.includes("3000"));
  await portal.call("process_write", { id: vim, content: "Gothird line\u001b", wait: "none" });
  await portal.screenUntil(vim, (s) => s.lines[2] === "third line" && s.cursor.col === 9);
  return { vim, bash };
}

/** The screens of vim (both buffers) and bash (with all its scrollback). */
async function screens(portal: Portal, ids: { vim: number; bash: number }) {
  return {
    vim: await portal.call("process_screen", { id: ids.vim }),
    // Not the screen it showed when parked: rebuilt.
    vimPrimary: await portal.call("process_screen", { id: ids.vim, buffer: "primary" }),
    bash: await portal.call("process_screen", { id: ids.bash, scrollback: 1000 }),
  };
}

posixTest("parking: vim and a scrolled shell, rebuilt, show what live ones show", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/live`);
  await Deno.mkdir(`${dir.path}/parked`);
  await using reference = await Portal.start();
  await using portal = await Portal.start();
  const live = await vimAndShell(reference, `${dir.path}/live`);
  const rebuilt = await vimAndShell(portal, `${dir.path}/parked`);
  const expected = await screens(reference, live);
  assertEquals(await screens(portal, rebuilt), expected);
  // As many terminals again as stay built: vim's and bash's emulators are dropped.
  for (let i = 0; i < LIVE_SCREENS; i++) await portal.spawn("cat", [], { pty: true });
  const again: Json = await screens(portal, rebuilt);
  assertEquals(again, expected);
  assertEquals(again.bash.scrollback.length, 1000);
  // Rebuilt, they go on as the live ones do (vim got no second answers to its questions).
  for (const [server, ids] of [[reference, live], [portal, rebuilt]] as const) {
    await server.call("process_write", { id: ids.vim, content: "ggdd:set nu\r", wait: "none" });
    await server.screenUntil(ids.vim, (s) => /^\s+2 third line$/.test(s.lines[1]));
    await server.call("process_write", { id: ids.bash, content: "echo end\n" });
  }
  assertEquals(await screens(portal, rebuilt), await screens(reference, live));
});
