import { DatabaseSync } from "node:sqlite";
import { Portal } from "../dev/portal_client.ts";
import { tempDir } from "../dev/temp_dir.ts";
import { posixTest } from "./helpers/platform.ts";
import { assert, assertEquals, assertMatch } from "./helpers/assert.ts";

posixTest("default database: a fresh .portal/portal-<pid>-<ms>.db, mode 0600", async () => {
  await using temp = await tempDir();
  const cwd = temp.path;
  // Disposed in reverse: the server stops before its working directory goes.
  await using portal = await Portal.start({ cwd, env: { PORTAL_DB_PATH: "" } });
  const id = await portal.spawn("echo", ["stored"]);
  await portal.readUntil(id, (t) => t.includes("stored"));
  const files = [...Deno.readDirSync(`${cwd}/.portal`)].map((e) => e.name);
  const db = files.find((f) => f.endsWith(".db"))!;
  assertMatch(db, /^portal-\d+-\d+\.db$/);
  assertEquals(Deno.readTextFileSync(`${cwd}/.portal/.gitignore`), "*\n");
  assertEquals(Deno.statSync(`${cwd}/.portal/${db}`).mode! & 0o777, 0o600);
  const conn = new DatabaseSync(`${cwd}/.portal/${db}`, { readOnly: true });
  try {
    const row = conn.prepare("SELECT content FROM process_records WHERE process_id = ?").get(id);
    assertEquals(new TextDecoder().decode(row!.content as Uint8Array), "stored\n");
  } finally {
    conn.close();
  }
});

posixTest(
  "registry: counts confirmations, resets on contradiction, persists across servers",
  async () => {
    await using temp = await tempDir();
    const dataDir = temp.path;
    // One block per server: the first is gone before the second opens the registry.
    {
      await using first = await Portal.start({ dataDir });
      assertEquals(await first.call("program_query", { program: "psql" }), {
        found: false,
        fact: null,
      });
      const once = await first.call("program_record", {
        program: "psql",
        needs_pty: true,
        notes: "REPL",
      });
      assertEquals([once.needs_pty, once.confirmed_count, once.notes], [true, 1, "REPL"]);
      const twice = await first.call("program_record", {
        program: "/usr/bin/psql",
        needs_pty: true,
      });
      assertEquals([twice.program, twice.confirmed_count, twice.notes], ["psql", 2, "REPL"]);
    }
    assert(Deno.statSync(`${dataDir}/programs.db`).isFile);
    {
      await using second = await Portal.start({ dataDir });
      const { found, fact } = await second.call("program_query", { program: "psql" });
      assertEquals([found, fact.needs_pty, fact.confirmed_count], [true, true, 2]);
      const corrected = await second.call("program_record", {
        program: "psql",
        needs_pty: false,
      });
      assertEquals([corrected.needs_pty, corrected.confirmed_count, corrected.notes], [
        false,
        1,
        null,
      ]);
    }
  },
);
