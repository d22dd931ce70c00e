/**
 * The screen of a PTY process, tied to its records: it reads its backlog
 * from the store, which keeps what it has not parsed (at most a quarter of
 * the per-process cap behind), and a real terminal's answers to the
 * program's queries (cursor position, device attributes) go back through
 * `answer`.
 *
 * @module
 */
import type { RecordStore } from "../store/record_store.ts";
import { Screen } from "./screen.ts";

/** A screen of `size` for process `id` of `store`; `answer` writes to the program. */
export function processScreen(
  id: number,
  size: { cols: number; rows: number },
  store: RecordStore,
  answer: (bytes: Uint8Array) => void,
): Screen {
  const cap = store.maxOutputBytes;
  const screen = new Screen(size.cols, size.rows, {
    backlog: (afterSeq, maxBytes) => store.raw(id, afterSeq, maxBytes),
    maxLag: cap > 0 ? Math.ceil(cap / 4) : Infinity,
  });
  screen.onReply((data) => answer(new TextEncoder().encode(data)));
  return screen;
}
