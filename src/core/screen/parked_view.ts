/**
 * What a parked screen still shows: its emulator's last plain snapshot (the
 * active buffer, no scrollback), asked for as it is dropped (the emulator is
 * disposed of once it answered). It answers a
 * plain snapshot while no output and no resize came since, so looking at an
 * idle terminal does not rebuild it; anything else rebuilds the emulator.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ParkedView } from "./parked_view.ts";
 *
 * const view = new ParkedView();
 * const snapshot = {
 *   buffer: "primary" as const,
 *   active_buffer: "primary" as const,
 *   cols: 80,
 *   rows: 24,
 *   cursor: { row: 0, col: 2 },
 *   title: null,
 *   lines: ["$ "],
 * };
 * const term = { snapshot: () => Promise.resolve(snapshot), dispose: () => {} };
 * view.keep(term, { seq: 3, sizes: 1 });
 * assert.deepEqual(await view.answer({}, { seq: 3, sizes: 1 }), snapshot);
 * assert.equal(await view.answer({}, { seq: 4, sizes: 1 }), undefined); // output came
 * assert.equal(await view.answer({ scrollback: 10 }, { seq: 3, sizes: 1 }), undefined);
 * ```
 * @module
 */
import type { ScreenRequest, ScreenSnapshot } from "../model/schema.ts";
import type { Emulator } from "./emulator.ts";

/** Where a screen is: its last record's seq, and how many sizes it has had. */
export interface ScreenPoint {
  seq: number;
  sizes: number;
}

/** A parked screen's last plain snapshot, and as of when. */
export class ParkedView {
  #view: (ScreenPoint & { snapshot: Promise<ScreenSnapshot | undefined> }) | undefined;

  /** Keeps the screen of `term`, dropped at `point`, then disposes of `term`. */
  keep(term: Pick<Emulator, "snapshot" | "dispose">, point: ScreenPoint): void {
    // Gone with the emulator (the Worker failed): a later snapshot rebuilds it.
    const snapshot = term.snapshot({}).catch(() => undefined);
    snapshot.finally(() => term.dispose());
    this.#view = { ...point, snapshot };
  }

  /** The kept snapshot, if `options` ask for it and the screen is still at its point. */
  async answer(
    options: Pick<ScreenRequest, "buffer" | "scrollback">,
    now: ScreenPoint,
  ): Promise<ScreenSnapshot | undefined> {
    const view = this.#view;
    if (!view || view.seq !== now.seq || view.sizes !== now.sizes || options.scrollback) return;
    const snapshot = await view.snapshot;
    if (!snapshot || (options.buffer ?? snapshot.buffer) !== snapshot.buffer) return;
    return { ...snapshot, lines: [...snapshot.lines] };
  }

  /** The emulator is back: it answers. */
  forget(): void {
    this.#view = undefined;
  }
}
