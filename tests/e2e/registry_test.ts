/**
 * The program registry under abuse: owner-only files, a damaged file, names
 * and notes that would break later calls, two servers writing at once; and
 * what it learns, kept across servers.
 */
import { Portal } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { posixTest } from "../helpers/platform.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";

/** Asserts that `portal`'s registry holds no fact about `program`. */
async function assertUnknown(portal: Portal, program: string): Promise<void> {
  assertEquals(await portal.call("program_query", { program }), { found: false, fact: null });
}

posixTest("registry: a new directory is 0700 and programs.db 0600", async () => {
  await using temp = await tempDir();
  const dataDir = `${temp.path}/a/b/portal`;
  {
    await using portal = await Portal.start({ dataDir });
    await portal.call("program_record", { program: "ssh", needs_pty: true });
  }
  for (const dir of [`${temp.path}/a`, `${temp.path}/a/b`, dataDir]) {
    assertEquals(Deno.statSync(dir).mode! & 0o777, 0o700, dir);
  }
  assertEquals(Deno.statSync(`${dataDir}/programs.db`).mode! & 0o777, 0o600);
});

posixTest(
  "registry: a damaged programs.db is moved aside with a warning, then replaced",
  async () => {
    await using temp = await tempDir();
    Deno.writeTextFileSync(`${temp.path}/programs.db`, "notes, not a database\n".repeat(100));
    await using portal = await Portal.start({ dataDir: temp.path, captureStderr: true });
    await assertUnknown(portal, "gdb");
    const fact = await portal.call("program_record", { program: "gdb", needs_pty: true });
    assertEquals(fact.confirmed_count, 1);
    const aside = [...Deno.readDirSync(temp.path)].map((e) => e.name)
      .find((name) => name.startsWith("programs.db.corrupt-"));
    assert(aside, "the damaged file is kept beside the new one");
    assertEquals(
      Deno.readTextFileSync(`${temp.path}/${aside}`),
      "notes, not a database\n".repeat(100),
    );
    assertMatch(portal.stderr, /program registry .*programs\.db could not be read.*moved it to/);
  },
);

posixTest("registry: NUL in a name and oversized notes are refused; later calls work", async () => {
  await using portal = await Portal.start();
  assertMatch(
    await portal.fail("program_record", { program: "ssh\0-evil", needs_pty: true }),
    /program.*NUL/s,
  );
  assertMatch(await portal.fail("program_query", { program: "ssh\0" }), /program.*NUL/s);
  assertMatch(
    await portal.fail("program_record", {
      program: "ssh",
      needs_pty: true,
      notes: "x".repeat(6 << 20),
    }),
    /notes/,
  );
  assertMatch(
    await portal.fail("program_record", { program: "s".repeat(300), needs_pty: true }),
    /program/,
  );
  // Nothing was stored by the refused calls, and the registry still answers.
  await assertUnknown(portal, "ssh");
  const fact = await portal.call("program_record", {
    program: "ssh",
    needs_pty: true,
    notes: "y".repeat(2000),
  });
  assertEquals(fact.notes.length, 2000);
});

posixTest("registry: two servers recording at once lose no update", async () => {
  await using temp = await tempDir();
  await using a = await Portal.start({ dataDir: temp.path });
  await using b = await Portal.start({ dataDir: temp.path });
  const record = (portal: Portal) =>
    portal.call("program_record", { program: "psql", needs_pty: true });
  const calls = Array.from({ length: 40 }, (_, i) => record(i % 2 ? a : b));
  await Promise.all(calls);
  const { fact } = await a.call("program_query", { program: "psql" });
  assertEquals(fact.confirmed_count, 40);
});

posixTest(
  "registry: counts confirmations, resets on contradiction, persists across servers",
  async () => {
    await using temp = await tempDir();
    const dataDir = temp.path;
    // One block per server: the first is gone before the second opens the registry.
    {
      await using first = await Portal.start({ dataDir });
      await assertUnknown(first, "psql");
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
