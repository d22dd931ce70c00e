/**
 * How a person's or a client's word for a process becomes one process, the
 * same for every command (`portal attach`, `watch`, `export`, and the host's
 * own lookups): digits are an id; a name means the live process of that name,
 * else the newest that had it (names are unique among running processes).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pickProcess } from "./process_target.ts";
 *
 * const calcs = [
 *   { id: 1, name: "calc", running: false },
 *   { id: 2, name: "calc", running: true },
 *   { id: 3, name: "calc", running: false },
 * ];
 * assert.equal(pickProcess(calcs, "calc")?.id, 2);
 * assert.equal(pickProcess(calcs.slice(0, 1).concat(calcs.slice(2)), "calc")?.id, 3);
 * assert.equal(pickProcess(calcs, "1")?.id, 1);
 * assert.equal(pickProcess(calcs, "nosuch"), undefined);
 * ```
 * @module
 */

/** What a process needs to be picked. */
export interface Pickable {
  id: number;
  name: string | null;
  running: boolean;
}

/** The process `target` (an id, or a name) means among `processes`, or undefined. */
export function pickProcess<T extends Pickable>(processes: T[], target: string): T | undefined {
  if (/^\d+$/.test(target)) return processes.find((p) => p.id === Number(target));
  const named = processes.filter((p) => p.name === target).sort((a, b) => a.id - b.id);
  return named.find((p) => p.running) ?? named.at(-1);
}
