/**
 * The program registry under abuse: owner-only files, a damaged file, names
 * and notes that would break later calls, and two servers writing at once.
 */
import { Portal } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { posixTest } from "../helpers/platform.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";

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
    assertEquals(await portal.call("program_query", { program: "gdb" }), {
      found: false,
      fact: null,
    });
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
  assertEquals(await portal.call("program_query", { program: "ssh" }), {
    found: false,
    fact: null,
  });
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
