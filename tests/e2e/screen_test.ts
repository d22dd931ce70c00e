import { assertEquals } from "../helpers/assert.ts";
import { portalTest } from "../helpers/portal.ts";

/**
 * Prints `lines` lines, then asks the terminal where its cursor is (CSI 6n) in
 * raw mode and prints the reply: only an emulator that has parsed everything
 * before the question can answer it right.
 */
const askCursor = (lines: number) => [
  "-c",
  `import os, sys, termios, tty
for i in range(${lines}): print("line", i)
sys.stdout.flush()
old = termios.tcgetattr(0)
tty.setraw(0)
os.write(1, b"abc\\x1b[6n")
reply = b""
while not reply.endswith(b"R"): reply += os.read(0, 1)
termios.tcsetattr(0, termios.TCSADRAIN, old)
print("\\nreply=" + repr(reply))`,
];

portalTest(
  "pty: the terminal answers a cursor-position query, after output it had not parsed",
  async (portal) => {
    for (const [lines, row] of [[0, 1], [5000, 24]]) {
      const id = await portal.spawn("python3", askCursor(lines), { pty: true });
      const text = await portal.readUntil(id, (t) => /reply=.*\n/.test(t), { timeoutMs: 30_000 });
      assertEquals(text.slice(text.indexOf("reply=")), `reply=b'\\x1b[${row};4R'\n`);
    }
  },
);
