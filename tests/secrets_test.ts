/**
 * Secrets and what the server leaves on disk: deleted records leave no text
 * of themselves in the database or its journal.
 */
import { Portal } from "../dev/portal_client.ts";
import { waitFor } from "../dev/wait.ts";
import { assertEquals } from "./helpers/assert.ts";
import { posixTest } from "./helpers/platform.ts";

/** Where `needle` occurs among the files under `dir` (recursively). */
async function filesHolding(dir: string, needle: string): Promise<string[]> {
  const bytes = new TextEncoder().encode(needle);
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) found.push(...await filesHolding(path, needle));
    else if (entry.isFile && indexOf(await Deno.readFile(path), bytes) >= 0) found.push(path);
  }
  return found;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  for (let at = haystack.indexOf(needle[0]); at >= 0; at = haystack.indexOf(needle[0], at + 1)) {
    let i = 1;
    while (i < needle.length && haystack[at + i] === needle[i]) i++;
    if (i === needle.length) return at;
  }
  return -1;
}

posixTest("(e) process_clear and process_cleanup leave no text of the records behind", async () => {
  await using portal = await Portal.start();
  // The marker is made by the program, so no argument (stored with the process) holds it.
  const script = "m = 'ZQ' + 'X' + '-' * 3\n" +
    "print('\\n'.join(m + str(i) for i in range(2000)))\n" +
    "print(m * 30000)\n" +
    "input()";
  const marker = "ZQX---";
  const files = () => filesHolding(portal.dir, marker);
  // Each has printed everything once it waits for input.
  const start = () =>
    portal.call("process_start", { command: "python3", args: ["-c", script], wait: "ready" });
  const first = (await start()).id;
  const second = (await start()).id;
  // Committed within 200 ms: the files hold the marker (the search works).
  await waitFor("the marker in the database", files, { until: (f) => f.length > 0 });
  await portal.call("process_clear", { id: first });
  await portal.call("process_write", { id: second, content: "\n", wait: "exit" });
  await portal.call("process_kill", { id: first });
  await portal.call("process_cleanup", { id: second });
  assertEquals(await files(), []);
  // Once the server is gone too; its files are its user's alone.
  await portal.client.close();
  assertEquals(await files(), []);
  for (const name of ["records.db", "records.db-journal"]) {
    assertEquals(Deno.statSync(`${portal.dir}/${name}`).mode! & 0o777, 0o600, name);
  }
});
