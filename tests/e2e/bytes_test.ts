/**
 * Every byte kept: NUL, control characters and invalid UTF-8, written by a
 * program or sent to it, on pipes and on a PTY, reach the records exactly,
 * come back exactly with `encoding: "base64"`, and as text (U+FFFD for
 * invalid bytes, NUL as itself) through every read.
 */
import { Buffer } from "node:buffer";
import type { Portal, Rec } from "../../dev/portal_client.ts";
import { waitFor } from "../../dev/wait.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { queryRecords } from "../helpers/records_file.ts";
import { sharedPortal } from "../helpers/portal.ts";

// Each test reads only its own process's records: one server for all.
const { linuxTest, portalTest } = sharedPortal();

// deno-lint-ignore no-explicit-any
type Json = any;

/** Every byte value twice, then text around a NUL: what the programs below write. */
const ALL_BYTES = new Uint8Array([...Array(256).keys(), ...Array(256).keys()]);
const AFTER_NUL = "a\0b-after-nul\nsecond line\n";
const EXPECTED = new Uint8Array([...ALL_BYTES, ...new TextEncoder().encode(AFTER_NUL)]);

/** A python3 program that writes EXPECTED (after making its terminal raw, with `raw`). */
function writer(raw: boolean): string[] {
  const setup = raw ? "import tty; tty.setraw(0); " : "";
  return [
    "-c",
    `${setup}import os, sys; os.write(1, bytes(range(256)) * 2); ` +
    `os.write(1, ${JSON.stringify(AFTER_NUL)}.encode()); sys.stdin.read(1)`,
  ];
}

/** The stored bytes of one source of a process, straight from the database. */
function stored(portal: Portal, id: number, source: string): Uint8Array {
  const rows = queryRecords<{ content: Uint8Array }>(
    portal.dbPath,
    "SELECT content FROM process_records WHERE process_id = ? AND source = ? ORDER BY seq",
    id,
    source,
  );
  return new Uint8Array(Buffer.concat(rows.map((r) => r.content)));
}

/** All of a process's records of `source` through process_read, as base64 and as text. */
async function readBoth(portal: Portal, id: number, source = "stdout") {
  const window = { id, source, duration: 600, unit: "s" };
  const raw = await portal.call("process_read", { ...window, encoding: "base64" });
  const text = await portal.call("process_read", window);
  const bytes = Buffer.concat(raw.records.map((r: Rec) => Buffer.from(r.content, "base64")));
  return { bytes: new Uint8Array(bytes), text: text.records.map((r: Rec) => r.content).join("") };
}

/** Waits until the process has written all of EXPECTED (it then waits for a byte of input). */
async function written(portal: Portal, id: number): Promise<string> {
  return await portal.readUntil(id, (t) => t.endsWith("second line\n"));
}

for (const pty of [false, true]) {
  const where = pty ? "a PTY in raw mode" : "pipes";
  portalTest(
    `output: every byte value, NUL and after, kept exactly on ${where}`,
    async (portal) => {
      const id = await portal.spawn("python3", writer(pty), { pty });
      const seen = await written(portal, id);
      const kept = await waitFor("every byte committed", () => stored(portal, id, "stdout"), {
        until: (bytes) => bytes.length >= EXPECTED.length,
      });
      assertEquals(kept, EXPECTED, "the records hold every byte");
      const { bytes, text } = await readBoth(portal, id);
      assertEquals(bytes, EXPECTED, "base64 gives them back exactly");
      // As text: NUL and the control characters as themselves, the rest after the NUL kept.
      assert(text.endsWith(AFTER_NUL), JSON.stringify(text.slice(-40)));
      for (const c of ["\0", "\x01", "\x07", "\x08", "\x7f", "\t"]) assert(text.includes(c), c);
      assert(text.includes("\ufffd"), "invalid UTF-8 is U+FFFD in text");
      assertEquals(seen, text, "read_new returns the same text as read");
      // A newest window of a few base64 characters is the last bytes, whole.
      const last = await portal.call("process_read", {
        id,
        duration: 600,
        unit: "s",
        encoding: "base64",
        max_chars: 10,
      });
      const tail = Buffer.concat(last.records.map((r: Rec) => Buffer.from(r.content, "base64")));
      assertEquals([tail.toString(), last.truncated], [" line\n", true], "the last 6 bytes");
    },
  );
}

portalTest(
  "input: NUL, control characters and non-ASCII reach the program and the records exactly",
  async (portal) => {
    const content = "a\0b\x01\x7f\x1b[Aé😀\n";
    const sent = new TextEncoder().encode(content);
    const id = await portal.spawn("python3", [
      "-c",
      `import sys; d = sys.stdin.buffer.read(${sent.length}); print(d.hex(), flush=True)`,
    ]);
    await portal.call("process_write", { id, content, wait: "none" });
    const out = await portal.readUntil(id, (t) => t.includes("\n"));
    assertEquals(out.trim(), Buffer.from(sent).toString("hex"), "the program got every byte");
    const kept = await waitFor(
      "the stdin record to be committed",
      () => stored(portal, id, "stdin"),
      {
        until: (bytes) => bytes.length > 0,
      },
    );
    assertEquals(kept, sent, "the stdin record holds every byte");
    const { bytes, text } = await readBoth(portal, id, "stdin");
    assertEquals([bytes, text], [sent, content]);
  },
);

linuxTest(
  "input on a PTY in raw mode: NUL and control bytes typed reach the program",
  async (portal) => {
    const content = "x\0y\x01\x03\x04\x1a\r";
    const id = await portal.spawn("python3", [
      "-c",
      "import os, tty; tty.setraw(0); d = b''\n" +
      "while not d.endswith(b'\\r'): d += os.read(0, 64)\n" +
      "os.write(1, d.hex().encode() + b'!')",
    ], { pty: true, wait: "ready" });
    const step: Json = await portal.call("process_write", { id, content, wait: "exit" });
    assertEquals(step.output, `${Buffer.from(content).toString("hex")}!`);
    // The program has exited: everything is committed.
    assertEquals(stored(portal, id, "stdin"), new TextEncoder().encode(content));
  },
);
