/**
 * `portal ps`: the processes of this user's host (of the database `--db` or
 * `PORTAL_DB_PATH` names, else the user's), every client's, for a person: id,
 * name, keep, state, command; and those it runs on other machines, as last
 * seen, with their MACHINE (`portal attach MACHINE:NAME` joins one; STATUS
 * `unreachable` while that machine does not answer). It never
 * starts a host: with none running, it says so.
 *
 * @module
 */
import type { ProcessLine } from "../core/model/schema.ts";
import { reachHost } from "../host/door.ts";
import { VERSION } from "../version.ts";
import { visible } from "./visible.ts";

/** Prints the table (or why there is none); returns the exit status. */
export async function ps(env: Record<string, string>): Promise<number> {
  let host;
  try {
    host = await reachHost(env, { portal: VERSION, role: "ps" }, { start: false });
  } catch (error) {
    console.error(`portal: ${(error as Error).message}`);
    return 1;
  }
  if (!host) {
    console.log("No Portal host is running for this records database: no processes.");
    return 0;
  }
  const { processes } = await host.lines.json<{ processes: ProcessLine[] }>();
  host.conn.close();
  console.log(table(processes));
  return 0;
}

/** The processes as aligned columns under a header; what programs supplied, made {@link visible}. */
export function table(processes: ProcessLine[]): string {
  const remote = processes.some((p) => p.machine !== undefined);
  const rows = [
    ["ID", "NAME", "KEEP", "STATUS", "STATE", "PID", "COMMAND", ...remote ? ["MACHINE"] : []],
    ...processes.map((p) => [
      String(p.id),
      visible(p.name ?? "-"),
      p.keep ? "yes" : "no",
      // A machine that did not answer the host's last look: its status is only as last seen.
      p.unreachable ? "unreachable" : p.status,
      p.state,
      String(p.os_pid),
      visible(p.command),
      ...remote ? [visible(p.machine ?? "-")] : [],
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i])).join("  ").trimEnd())
    .join("\n");
}
