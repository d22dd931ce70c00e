/**
 * Finding processes by what Linux's /proc says of each, read in this
 * process: no `ps` spawned per look.
 *
 * @module
 */

/**
 * The pids whose /proc/PID/`file` satisfies `match`; a process that ends
 * meanwhile, or is not ours to read, is left out.
 */
export function pidsWhere(file: "stat" | "cmdline", match: (text: string) => boolean): number[] {
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      if (match(Deno.readTextFileSync(`/proc/${entry.name}/${file}`))) {
        pids.push(Number(entry.name));
      }
    } catch { /* ended meanwhile */ }
  }
  return pids;
}
