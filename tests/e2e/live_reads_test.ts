/**
 * A person's reader of a live server's records file (`portal export`'s
 * DatabaseReader) never fails while the server commits: a read-only
 * connection can take a commit that is starting for a crash's journal, and
 * fails then unless it tries again (src/core/store/live_reads.ts). Without
 * that, about 1 read in 500 failed during a flood.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { waitFor } from "../../dev/wait.ts";
import { DatabaseReader } from "../../src/core/store/database_reader.ts";
import { portalTest } from "../helpers/portal.ts";

const READS = 3000;

portalTest(
  "a read-only reader of a live server's file never fails while it commits",
  async (portal) => {
    const id = await portal.spawn("yes", ["flood line of text"]);
    const sees = () => {
      const reader = new DatabaseReader(portal.dbPath);
      try {
        return reader.pick(String(id)) === id;
      } finally {
        reader.close();
      }
    };
    // The process's row is committed within the store's commit interval of its start.
    await waitFor(`process ${id}'s row in the file`, sees);
    const before = (await portal.call("process_inspect", { id })).stdout_count as number;
    let found = 0;
    for (let i = 0; i < READS; i++) if (sees()) found++;
    const after = (await portal.call("process_inspect", { id })).stdout_count as number;
    await portal.call("process_kill", { id });
    assertEquals(found, READS, "every read saw the process's row");
    assert(after > before, "the flood went on (and so did the commits) while the reads ran");
  },
);
