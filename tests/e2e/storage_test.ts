/**
 * Where the records go and who may use them: the per-user state directory by
 * default (never the working directory), a file that is not Portal's refused
 * untouched, a Portal database reopened with its records, one live server per
 * file, old databases removed after the retention period.
 */
import { DatabaseSync } from "node:sqlite";
import { endHost, hostPid, Portal, runtimeDirOf } from "../../dev/portal_client.ts";
import { openFds } from "../../dev/process_table.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";
import { posixTest } from "../helpers/platform.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { listTree, runCli } from "../helpers/cli.ts";
import { queryRecords } from "../helpers/records_file.ts";

const DAY_MS = 86_400_000;

const mode = (path: string) => Deno.statSync(path).mode! & 0o777;
const missing = (path: string) => {
  try {
    Deno.lstatSync(path);
    return false;
  } catch {
    return true;
  }
};

/** A test given a new directory (its path), removed after it whatever the outcome. */
function dirTest(name: string, fn: (dir: string) => Promise<void>): void {
  posixTest(name, async () => {
    await using dir = await tempDir();
    await fn(dir.path);
  });
}

posixTest(
  "default database: the host's portal.db (--no-host: one per server) in the state directory, never the cwd; 0700 dirs, 0600 file",
  async () => {
    await using cwd = await tempDir();
    for (const [dir, noHost] of [[cwd.path, false], ["/", false], [cwd.path, true]] as const) {
      const rootHadPortal = !missing("/.portal");
      // Disposed in reverse: the server stops before its working directory goes.
      await using portal = await Portal.start({ cwd: dir, env: { PORTAL_DB_PATH: "" }, noHost });
      const id = await portal.spawn("echo", ["stored"]);
      await portal.readUntil(id, (t) => t.includes("stored"));
      const records = `${portal.home}/.local/state/portal/records`;
      const [db] = [...Deno.readDirSync(records)].map((e) => e.name).filter((n) =>
        n.endsWith(".db")
      );
      const name = noHost ? `portal-${portal.transport.pid}-\\d+\\.db` : "portal\\.db";
      assertMatch(db, new RegExp(`^${name}$`));
      for (
        const made of [
          ".local",
          ".local/state",
          ".local/state/portal",
          ".local/state/portal/records",
        ]
      ) {
        assertEquals(mode(`${portal.home}/${made}`), 0o700, made);
      }
      assertEquals(mode(`${records}/${db}`), 0o600);
      assertEquals(mode(`${records}/${db}.lock`), 0o600);
      const rows = queryRecords(
        `${records}/${db}`,
        "SELECT content FROM process_records WHERE process_id = ?",
        id,
      );
      assertEquals(new TextDecoder().decode(rows[0].content as Uint8Array), "stored\n");
      if (dir === "/") assertEquals(!missing("/.portal"), rootHadPortal, "nothing made in /");
      else assertEquals(await listTree(dir), [], "nothing made in the working directory");
    }
  },
);

dirTest(
  "a file that is not a Portal database is refused, left untouched, one line on stderr",
  async (dir) => {
    const notes = `${dir}/notes.txt`;
    await Deno.writeTextFile(notes, "my notes\n".repeat(1000));
    const other = `${dir}/other.db`;
    const sqlite = new DatabaseSync(other);
    sqlite.exec("CREATE TABLE mine (x); INSERT INTO mine VALUES (42)");
    sqlite.close();
    const before = await Deno.readFile(other);
    for (
      const [path, what] of [[notes, /not a database/], [other, /another program's SQLite/], [
        dir,
        /is not a file/,
      ]] as const
    ) {
      const run = await runCli(dir, ["--db", path]);
      assertEquals([run.code, run.stdout], [1, ""], run.stderr);
      assertMatch(
        run.stderr,
        /^portal: cannot start: .*(not a Portal records database|not a file)/,
      );
      assertMatch(run.stderr, what);
      assertEquals(run.stderr.trim().split("\n").length, 1, run.stderr);
      assert(missing(`${path}.lock`), "no lock file left beside it");
    }
    assertEquals(await Deno.readTextFile(notes), "my notes\n".repeat(1000));
    assertEquals(await Deno.readFile(other), before);
    // An empty file holds nothing to lose: it becomes a new database.
    await Deno.writeTextFile(`${dir}/empty.db`, "");
    await using portal = await Portal.start({ args: ["--db", `${dir}/empty.db`], noHost: true });
    await portal.spawn("true");
  },
);

dirTest(
  "a Portal database is reopened after a crash: earlier records stay, new ids go on after them",
  async (dir) => {
    const db = `${dir}/kept.db`;
    // One server that crashes (a host's crash: host_test.ts).
    const first = await Portal.start({ args: ["--db", db], noHost: true });
    try {
      for (const word of ["one", "two"]) {
        const id = await first.spawn("echo", [word]);
        await first.readUntil(id, (t) => t.includes(word));
      }
      await first.call("process_cleanup", { id: 1 });
      // Committed (within COMMIT_INTERVAL_MS) before the crash.
      await waitFor(
        "process 2's row and record",
        () =>
          queryRecords(
            db,
            "SELECT count(*) AS n FROM processes UNION ALL SELECT count(*) FROM records",
          ),
        {
          until: (rows) => rows[0].n === 1 && rows[1].n === 1,
        },
      );
      // A crash: no shutdown, the lock file stays behind naming a dead pid.
      Deno.kill(first.transport.pid!, "SIGKILL");
      await waitFor("the killed server's lock to be free", () => {
        const file = Deno.openSync(`${db}.lock`, { read: true, write: true });
        try {
          return file.tryLockSync(true);
        } finally {
          file.close();
        }
      });
    } finally {
      await first.close();
    }
    await using second = await Portal.start({
      args: ["--db", db],
      captureStderr: true,
      noHost: true,
    });
    const id = await second.spawn("echo", ["three"]);
    await waitFor("the startup line", () => second.stderr, {
      until: (text) =>
        /kept\.db \(opened again: its records are kept, new ids start at 3\)\n/.test(text),
    });
    assertEquals(id, 3, "after the highest id in the file, even one cleaned up");
    await second.readUntil(id, (t) => t.includes("three"));
    assertEquals((await second.call("process_list")).processes.map((p: { id: number }) => p.id), [
      3,
    ]);
    assertMatch(
      await second.fail("process_read", { id: 2 }),
      /No process with id 2 here \(an earlier server's on this records database/,
    );
    const rows = queryRecords(
      db,
      "SELECT process_id, content FROM process_records WHERE source = 'stdout'",
    );
    const text = rows.map((r) =>
      `${r.process_id}:${new TextDecoder().decode(r.content as Uint8Array)}`
    );
    assertEquals(text.sort(), ["2:two\n", "3:three\n"]);
    assertEquals(queryRecords(db, "SELECT id FROM processes ORDER BY id").map((r) => r.id), [2, 3]);
    assertEquals(mode(db), 0o600);
  },
);

dirTest("a second server on a database in use is refused; the first goes on", async (dir) => {
  const db = `${dir}/shared.db`;
  // A server of its own holds it; a door's host (runCli) may not take it.
  await using first = await Portal.start({ args: ["--db", db], noHost: true });
  const id = await first.spawn("echo", ["mine"]);
  await first.readUntil(id, (t) => t.includes("mine"));
  for (const args of [["--db", db], []]) {
    const run = await runCli(dir, args, { PORTAL_DB_PATH: db });
    assertEquals([run.code, run.stdout], [1, ""]);
    assertMatch(
      run.stderr,
      new RegExp(
        `^portal: cannot start: the records database ${db} is in use by another ` +
          `Portal process \\(pid ${first.transport.pid}\\), a host of another Portal version ` +
          "or a server started with --no-host: each needs its own. Stop that one",
      ),
    );
    // Never "leave --db unset": unset, a host serves the user's database, the same file.
    assertMatch(run.stderr, /give this one another file with --db PATH/);
    assert(!/unset/.test(run.stderr), run.stderr);
    assertEquals(run.stderr.trim().split("\n").length, 1);
  }
  const again = await first.spawn("echo", ["still mine"]);
  await first.readUntil(again, (t) => t.includes("still mine"));
  // The file gets the second row with the next commit (within 200 ms).
  await waitFor("both processes in the file", () => {
    return queryRecords(db, "SELECT count(*) AS n FROM processes")[0].n;
  }, { until: (n) => n === 2 });
});

posixTest(
  "old per-instance databases go after PORTAL_RETENTION_DAYS; a live server's never",
  async () => {
    await using state = await tempDir();
    const records = `${state.path}/portal/records`;
    const env = { PORTAL_DB_PATH: "", XDG_STATE_HOME: state.path };
    // Per-instance databases are what servers of their own make (--no-host).
    await using live = await Portal.start({ env, noHost: true });
    await live.waitExit(await live.spawn("true"));
    const liveDb = [...Deno.readDirSync(records)].map((e) => e.name).find((n) =>
      n.endsWith(".db")
    )!;
    // Ended and committed: nothing writes its database until a next call.
    await waitFor(
      "the ended process's row",
      () => queryRecords(`${records}/${liveDb}`, "SELECT status FROM processes"),
      {
        until: (rows) => rows[0]?.status === "exited",
      },
    );
    const old = new Date(Date.now() - 8 * DAY_MS);
    const made = (name: string, age: Date) => {
      Deno.writeTextFileSync(`${records}/${name}`, "x");
      Deno.utimeSync(`${records}/${name}`, age, age);
    };
    made("portal-1-1.db", old);
    made("portal-1-1.db-journal", old);
    made("portal-1-1.db.lock", old); // a crashed server's: nothing holds it
    made("portal-2-2.db", new Date()); // ended recently
    made("notes.txt", old); // not Portal's
    for (const name of [liveDb, `${liveDb}.lock`]) Deno.utimeSync(`${records}/${name}`, old, old);
    const names = () => [...Deno.readDirSync(records)].map((e) => e.name).sort();
    {
      await using next = await Portal.start({ env, noHost: true });
      await next.spawn("true");
      const left = names();
      assert(!left.some((n) => n.startsWith("portal-1-1.")), left.join(" "));
      for (const kept of ["portal-2-2.db", "notes.txt", liveDb, `${liveDb}.lock`]) {
        assert(left.includes(kept), `${kept} kept: ${left.join(" ")}`);
      }
    }
    // 0 days: every database no server holds goes at the next start.
    await using last = await Portal.start({
      env: { ...env, PORTAL_RETENTION_DAYS: "0" },
      noHost: true,
    });
    await last.spawn("true");
    const left = names();
    assert(!left.includes("portal-2-2.db"), left.join(" "));
    assert(left.includes(liveDb) && left.includes("notes.txt"), left.join(" "));
    assertEquals(left.filter((n) => n.endsWith(".db")).length, 2, "the two live servers' own");
    assertEquals(Deno.statSync(`${records}/${liveDb}`).mtime, old, "it looked old to the sweeps");
    await live.call("process_list");
  },
);

dirTest(
  "doctor says what is at the database path: a foreign file fails, a live one is in use",
  async (dir) => {
    const notes = `${dir}/notes.txt`;
    await Deno.writeTextFile(notes, "mine");
    const foreign = await runCli(dir, ["doctor", "--db", notes]);
    assertEquals(foreign.code, 1);
    assertMatch(foreign.stdout, /^database +FAIL +.*notes\.txt is not a Portal records database/m);
    const db = `${dir}/live.db`;
    await using server = await Portal.start({ args: ["--db", db], noHost: true });
    await server.spawn("true");
    const live = await runCli(dir, ["doctor", "--db", db]);
    assertMatch(
      live.stdout,
      new RegExp(
        `^database +ok +.*a Portal database, in use by a server \\(pid ${server.serverPid}\\)`,
        "m",
      ),
    );
    assertEquals(await Deno.readTextFile(notes), "mine");
  },
);

dirTest(
  "a damaged database is said at once, by the client's error and doctor; no host stays, nothing is deleted",
  async (dir) => {
    const db = `${dir}/records.db`;
    {
      // A real records database, with an earlier host's kept processes to adopt: a row a page
      // (their long arguments), so the table has leaves besides its last.
      await using portal = await Portal.start({ dir: dir });
      for (const word of ["one", "two", "three", "four"]) {
        const id = await portal.spawn("echo", [word, "x".repeat(2500)], { keep: true });
        await portal.readUntil(id, (t) => t.includes(word));
      }
    }
    await endHost(dir);
    const good = await Deno.readFile(db);
    // The processes table's first leaf (what a host reads to adopt the earlier processes; the
    // zombie of issue 28), then its root (what opening the store reads).
    const pages = [firstLeaf(db, "processes"), rootPage(db, "processes")];
    assert(pages[0] !== pages[1], "the table has more than one page");
    for (const page of pages) {
      await Deno.writeFile(db, good);
      damagePage(db, page);
      const damaged = await Deno.readFile(db);
      // Twice: a second door meets no leftover host, and gets the same answer.
      for (const attempt of [1, 2]) {
        let answer: Error | undefined;
        Portal.start({ dir: dir }).then(
          (portal) => portal.close().then(() => answer = new Error("the door served")),
          (error: Error) => answer = error,
        );
        const error = await waitFor(
          `the door's answer (attempt ${attempt}, page ${page})`,
          () => answer,
          { timeoutMs: 15_000, intervalMs: 50 },
        );
        assertMatch(
          error!.message,
          new RegExp(
            `the records database ${db} is damaged \\(SQLite says: database disk image is ` +
              `malformed\\)\\. Portal deletes nothing: move it aside \\(mv '${db}' '${db}\\.damaged'\\)`,
          ),
        );
        assertEquals(hostPid(dir), undefined, "no host left");
        for (const lock of [`${db}.lock`, ...socketLocks(dir)]) {
          assert(lockFree(lock), `${lock} is free`);
        }
        assertEquals(openersOf(db), [], "no process holds the file");
      }
      const doctor = await runCli(dir, ["doctor"]);
      assertEquals(doctor.code, 1, doctor.stdout);
      assertMatch(
        doctor.stdout,
        new RegExp(`^database +FAIL +${db} .*the records database ${db} is damaged \\(SQLite`, "m"),
      );
      assertEquals(await Deno.readFile(db), damaged, "the file is left as it was");
    }
  },
);

/** The root page of `table` in the SQLite file at `path`. */
function rootPage(path: string, table: string): number {
  const [{ rootpage }] = queryRecords<{ rootpage: number }>(
    path,
    "SELECT rootpage FROM sqlite_master WHERE name = ?",
    table,
  );
  return rootpage;
}

/** The leftmost leaf of `table`'s b-tree (SQLite's file format: interior pages are type 5). */
function firstLeaf(path: string, table: string): number {
  const file = Deno.readFileSync(path);
  const pageSize = new DataView(file.buffer).getUint16(16);
  for (let page = rootPage(path, table);;) {
    const view = new DataView(file.buffer, (page - 1) * pageSize, pageSize);
    if (view.getUint8(0) !== 5) return page;
    page = view.getUint32(view.getUint16(12)); // The first cell's left child.
  }
}

/** Overwrites the header of page `page` (from 1) of the file at `path` with 0xff bytes. */
function damagePage(path: string, page: number): void {
  using file = Deno.openSync(path, { read: true, write: true });
  const header = new Uint8Array(100);
  file.readSync(header);
  file.seekSync((page - 1) * new DataView(header.buffer).getUint16(16), Deno.SeekMode.Start);
  file.writeSync(new Uint8Array(12).fill(0xff));
}

/** The host socket locks in `dir`'s runtime directory. */
function socketLocks(dir: string): string[] {
  const run = `${runtimeDirOf(dir)}/portal`;
  return [...Deno.readDirSync(run)].filter((e) => e.name.endsWith(".sock.lock"))
    .map((e) => `${run}/${e.name}`);
}

/** Whether no process holds the lock file at `path`. */
function lockFree(path: string): boolean {
  try {
    using file = Deno.openSync(path, { read: true, write: true });
    return file.tryLockSync(true);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return true;
    throw error;
  }
}

/** The pids that have `path` open (Linux /proc; elsewhere, none found). */
function openersOf(path: string): number[] {
  if (Deno.build.os !== "linux") return [];
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const pid = Number(entry.name);
    try {
      if (openFds(pid).some(({ link }) => link === path)) pids.push(pid);
    } catch { /* ended meanwhile, or not ours to see */ }
  }
  return pids;
}

dirTest("a bad PORTAL_RETENTION_DAYS stops the start with one line", async (dir) => {
  const run = await runCli(dir, [], { PORTAL_RETENTION_DAYS: "a week" });
  assertEquals([run.code, run.stdout], [1, ""]);
  assertMatch(run.stderr, /^portal: cannot start: PORTAL_RETENTION_DAYS must be a number of days/);
  assertEquals(run.stderr.trim().split("\n").length, 1);
});
