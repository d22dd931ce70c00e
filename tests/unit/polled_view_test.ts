/**
 * A live feed read by long polls (src/core/watch/polled_view.ts): what a
 * cursor acknowledges goes, a screen replaces what was queued before it, a
 * reply is bounded, and a poll with nothing new waits for the next event.
 */
import { POLL_REPLY_BYTES, PolledView } from "../../src/core/watch/polled_view.ts";
import type { LiveSource } from "../../src/core/watch/live_feed.ts";
import type { LiveEvent } from "../../src/core/watch/viewers.ts";
import { assert, assertEquals } from "../helpers/assert.ts";

/** A source that answers with `>>> ` and lets the test send events. */
function source(): { source: LiveSource; send: (event: LiveEvent) => void } {
  let listener: (event: LiveEvent) => void = () => {};
  return {
    source: {
      observe: (l) => (listener = l, () => {}),
      liveScreen: () => Promise.resolve({ seq: 1, cols: 80, rows: 24, data: ">>> ", pty: true }),
      floodScreen: () => ({ seq: 0, cols: 80, rows: 24, data: "", pty: true }),
    },
    send: (event) => listener(event),
  };
}

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("a polled view: the cursor acknowledges, a poll waits for the next event", async () => {
  const { source: s, send } = source();
  const view = new PolledView(s);
  const first = await view.poll(0, 1000);
  assertEquals(first.events.map((e) => e.type), ["screen"]);
  // Not acknowledged: asked again from the same cursor, the screen comes again.
  assertEquals((await view.poll(0, 0)).events.map((e) => e.type), ["screen"]);
  // Acknowledged: nothing, after waiting at most as long as asked.
  const started = performance.now();
  assertEquals((await view.poll(first.cursor, 50)).events, []);
  assert(performance.now() - started < 1000, "an idle poll returns at its bound");
  // A waiting poll returns as soon as an event comes.
  const waiting = view.poll(first.cursor, 5000);
  send({ kind: "output", seq: 2, bytes: bytes("42") });
  const next = await waiting;
  assertEquals(next.events, [{ type: "output", data: btoa("42") }]);
  assert(next.cursor > first.cursor, "the cursor moves on");
  view.close();
});

Deno.test("a polled view: a screen replaces what was queued; a reply is bounded", async () => {
  const { source: s, send } = source();
  const view = new PolledView(s);
  const first = await view.poll(0, 1000);
  // Output the page has not taken, then a fresh screen: only the screen is left to send.
  send({ kind: "output", seq: 2, bytes: bytes("old") });
  // Queued when the feed's frame ends: a poll from the same cursor waits for it, acks nothing.
  const queued = await view.poll(first.cursor, 10_000);
  assertEquals(queued.events, [{ type: "output", data: btoa("old") }]);
  view.restart();
  const after = await view.poll(first.cursor, 1000);
  assertEquals(after.events.map((e) => e.type), ["screen"]);
  // More output than one reply carries comes in two.
  const chunk = "x".repeat(20_000);
  let seq = 3;
  for (let i = 0; i < 30; i++) {
    send({ kind: "output", seq: seq++, bytes: bytes(chunk) });
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const one = await view.poll(after.cursor, 1000);
  const size = one.events.reduce((n, e) => n + (e.type === "output" ? atob(e.data).length : 0), 0);
  assert(size <= POLL_REPLY_BYTES && size > 0, `one reply: ${size} bytes`);
  const two = await view.poll(one.cursor, 1000);
  assert(two.events.length > 0, "the rest comes in the next reply");
  view.close();
});
