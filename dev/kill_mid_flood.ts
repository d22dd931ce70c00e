/**
 * A server SIGKILLed in the middle of a flood, and what its database holds
 * afterwards: shared by the durability test (one kill) and the soak script
 * (`dev/soak.ts durability`, many). The flood writes numbered lines, each with
 * the wall-clock time it was written, so the file says how far before the
 * kill its last committed line is and whether every line before it is there.
 *
 * @example
 * ```ts ignore
 * import { killMidFlood } from "./kill_mid_flood.ts";
 *
 * const { lagMs, integrity, gap } = await killMidFlood("/tmp/r.db", 300);
 * ```
 * @module
 */
import { Buffer } from "node:buffer";
import { DatabaseSync } from "node:sqlite";
import { Portal } from "./portal_client.ts";
import { waitFor } from "./wait.ts";

/**
 * Writes numbered lines with the time they were written (ns): 100 per write as
 * fast as it can, or with `pauseMs`, one per write and a pause after each.
 */
function flood(pauseMs: number): string[] {
  const batch = pauseMs > 0 ? 1 : 100;
  return [
    "-c",
    "import os, time\ni = 0\nwhile True:\n" +
    `  os.write(1, b"".join(b"%09d %d\\n" % (i + k, time.time_ns()) for k in range(${batch})))\n` +
    `  i += ${batch}\n  time.sleep(${pauseMs / 1000})`,
  ];
}

/** What the database of a killed server held. */
export interface AfterKill {
  /** Milliseconds between the last committed line's writing and the kill. */
  lagMs: number;
  /** Complete lines of the flood in the file. */
  lines: number;
  /** `PRAGMA integrity_check` on the file, as the next server opens it. */
  integrity: string;
  /** The first line out of place (missing, twice, or malformed), or -1. */
  gap: number;
  /** Bytes of the file. */
  bytes: number;
}

/**
 * Starts a server on `db`, lets the program write for `floodMs` once output
 * flows (a flood, or one line per `pauseMs`), SIGKILLs the server, reads the file.
 */
export async function killMidFlood(db: string, floodMs: number, pauseMs = 0): Promise<AfterKill> {
  const portal = await Portal.start({ args: ["--db", db] });
  let killedAt: number;
  let id: number;
  try {
    id = await portal.spawn("python3", flood(pauseMs));
    await waitFor("the flood to be under way", () => portal.call("process_inspect", { id }), {
      until: (info) => info.stdout_count > 5,
    });
    // The process that holds the program and the database: the host (or a --no-host server).
    const server = portal.serverPid;
    await new Promise((resolve) => setTimeout(resolve, floodMs));
    killedAt = Date.now();
    Deno.kill(server, "SIGKILL");
    await waitFor("the server to die", async () => {
      const { code } = await new Deno.Command("kill", {
        args: ["-0", String(server)],
        stderr: "null",
      }).output();
      return code !== 0;
    });
  } finally {
    await portal.close();
  }
  // Opened read-write, as the next server would: a half-written commit is rolled back.
  const file = new DatabaseSync(db);
  try {
    const { integrity_check } = file.prepare("PRAGMA integrity_check").get() as {
      integrity_check: string;
    };
    const rows = file.prepare(
      "SELECT content FROM process_records WHERE process_id = ? AND source = 'stdout' ORDER BY seq",
    ).all(id) as { content: Uint8Array }[];
    // The last line may have been cut by the kill.
    const lines = new TextDecoder().decode(Buffer.concat(rows.map((r) => r.content)))
      .split("\n").slice(0, -1);
    const gap = lines.findIndex((line, i) =>
      !/^\d{9} \d+$/.test(line) || Number(line.slice(0, 9)) !== i
    );
    const last = lines.at(-1)?.split(" ")[1];
    const lagMs = last === undefined ? Infinity : killedAt - Number(BigInt(last) / 1_000_000n);
    return {
      lagMs,
      lines: lines.length,
      integrity: integrity_check,
      gap,
      bytes: Deno.statSync(db).size,
    };
  } finally {
    file.close();
  }
}
