/**
 * The modes followed on raw bytes (mode_tracker.ts) against the emulator
 * itself: the same seeded random output, mode sequences among text, cut at
 * random places, must leave both with the same modes after every chunk,
 * unless the tracker said "unknown" (then the screen asks the emulator).
 */
import { Emulator } from "../../src/core/screen/emulator.ts";
import { ModeTracker } from "../../src/core/screen/mode_tracker.ts";
import { assertEquals } from "../helpers/assert.ts";
import { Random } from "../../dev/random.ts";

const PIECES = [
  "text ",
  "\r\n",
  "\x1b[1mbold\x1b[0m",
  "\x1b[?25l",
  "\x1b[?25h",
  "\x1b[?1h",
  "\x1b[?1l",
  "\x1b[?2004h",
  "\x1b[?2004l",
  "\x1b[?1049h",
  "\x1b[?1049l",
  "\x1b[?47h",
  "\x1b[?1047l",
  "\x1b[?1;2004h",
  "\x1b[?1000;1l",
  "\x1b[?01h",
  "\x1b[?2004:1l",
  "\x1b[?6n",
  "\x1b[?1$p",
  "\x1b]0;title\x07",
  "\x1b[2J\x1b[H",
];

Deno.test("the modes followed on raw bytes are the emulator's, chunk after chunk", async () => {
  const random = new Random(7);
  const emulator = new Emulator(80, 24, 100);
  const tracker = new ModeTracker();
  try {
    let compared = 0;
    for (let round = 0; round < 300; round++) {
      let text = "";
      for (let n = 1 + random.int(6); n > 0; n--) {
        text += PIECES[random.int(PIECES.length)];
      }
      const bytes = new TextEncoder().encode(text);
      // Cut anywhere, a sequence's own bytes included.
      const cut = random.int(bytes.length + 1);
      for (const part of [bytes.slice(0, cut), bytes.slice(cut)]) {
        assertEquals(tracker.scan(part) === "unknown", false);
        await emulator.write(part.slice());
      }
      assertEquals(tracker.modes, await emulator.modes(), `after ${JSON.stringify(text)}`);
      compared++;
    }
    assertEquals(compared, 300);
    assertEquals(tracker.scan(new TextEncoder().encode("\x1bc")), "unknown");
    assertEquals(tracker.scan(new TextEncoder().encode("\x1b[!p")), "unknown");
  } finally {
    emulator.dispose();
  }
});
